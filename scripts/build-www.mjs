// Builds the demo viewer: webpack with webpack.config.js, then the page's HTML and CSS beside the bundle.
import webpack from "webpack";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import config from "../webpack.config.js";

const stats = await new Promise((ok, fail) =>
  webpack(config, (err, s) => (err ? fail(err) : ok(s))),
);
if (stats.hasErrors()) {
  console.error(stats.toString({ colors: false, all: false, errors: true }));
  process.exit(1);
}
const out = config.output.path;
const assets = Object.keys(stats.compilation.assets);
const bundle = assets.find((f) => /^main\.[0-9a-f]+\.js$/.test(f));
// The bundle's name carries a content hash, so the page is written with it.
const html = await readFile(new URL("../www/index.html", import.meta.url), "utf8");
await writeFile(`${out}/index.html`, html.replace("__BUNDLE__", bundle));
await copyFile(new URL("../www/style.css", import.meta.url), `${out}/style.css`);
console.log(`[build:www] www/dist: ${assets.filter((f) => !f.endsWith(".map")).join(", ")}`);
