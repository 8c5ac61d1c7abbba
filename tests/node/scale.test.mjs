// The scale cases (tests/cases/scale.mjs) in Node, in a process of their own: the module's memory
// is theirs alone. The arrays are written first by scripts/make_scale_data.sh (skipped when there).
import { after, before, test } from "node:test";
import { execFileSync } from "node:child_process";
import * as zarr from "zarr-wasm";
import * as plugin from "zarr-wasm/zarrita";
import * as zarrita from "zarrita";
import { startServer } from "../support/server.mjs";
import { makeContext } from "../cases/context.mjs";
import { scaleCases } from "../cases/scale.mjs";

const repo = new URL("../../", import.meta.url).pathname;
let server;
let ctx;

before(async () => {
  execFileSync("bash", [`${repo}/scripts/make_scale_data.sh`], { stdio: "inherit" });
  server = await startServer({ mounts: { "/": repo } });
  ctx = {
    ...makeContext(zarr, server.url, { zarrita, plugin }),
    scaleBase: `${server.url}/target/scale-data`,
  };
});
after(() => server.close());

for (const c of scaleCases) test(c.name, () => c.run(ctx));
