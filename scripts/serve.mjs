// Serves the built viewer and its sample images on 127.0.0.1 (PORT, default 8080).
import { startServer } from "../tests/support/server.mjs";

const port = Number(process.env.PORT ?? 8080);
const server = await startServer({
  mounts: { "/": "www/dist", "/data/": "www/data" },
  port,
  quiet: !process.env.VERBOSE,
});
console.log(`zarr-wasm viewer: ${server.url}/   (Ctrl-C to stop)`);
