// The shared read cases, in Node, against the built package imported by its name.
import { after, before, test } from "node:test";
import { readFileSync } from "node:fs";
import * as zarr from "zarr-wasm";
import * as plugin from "zarr-wasm/zarrita";
import * as viv from "zarr-wasm/viv";
import * as ome from "zarr-wasm/ome";
import * as zarrita from "zarrita";
import { startServer } from "../support/server.mjs";
import { makeContext } from "../cases/context.mjs";
import { MANIFESTS, allCases } from "../cases/all.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const manifests = MANIFESTS.map((m) =>
  JSON.parse(readFileSync(`${repo}/tests/fixtures/${m}`, "utf8")),
);
let server;
let ctx;

before(async () => {
  server = await startServer({ mounts: { "/": repo } });
  ctx = makeContext(zarr, server.url, {
    stressReads: Number(process.env.STRESS_READS) || undefined,
    zarrita,
    plugin,
    viv,
    ome,
  });
});
after(() => server.close());

for (const c of allCases(manifests)) test(c.name, () => c.run(ctx));
