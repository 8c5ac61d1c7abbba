// The decoding cases against the module built without simd128 (scripts/build.sh --scalar, which
// scripts/test.sh runs): the package ships the simd128 build only (README, "Toolchain"), and these
// runs check that the scalar kernels the simd128 ones replace decode every fixture as well, in
// wasm, so that either build can be shipped.
import { after, before, test } from "node:test";
import { readFileSync } from "node:fs";
import { startServer } from "../support/server.mjs";
import { makeContext } from "../cases/context.mjs";
import { MANIFESTS, decodingCases } from "../cases/all.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const scalar = await import(`${repo}/target/scalar-pkg/index.js`);
const manifests = MANIFESTS.map((m) =>
  JSON.parse(readFileSync(`${repo}/tests/fixtures/${m}`, "utf8")),
);
let server;
let ctx;

before(async () => {
  server = await startServer({ mounts: { "/": repo } });
  ctx = makeContext(scalar, server.url, {});
});
after(() => server.close());

test("the scalar build is another module with the same exports", () => {
  const names = (file) => {
    const module = new WebAssembly.Module(readFileSync(file));
    return WebAssembly.Module.exports(module)
      .map((e) => `${e.kind} ${e.name}`)
      .sort();
  };
  const bytes = readFileSync(`${repo}/target/scalar-pkg/zarr_wasm_bg.wasm`);
  if (bytes.equals(readFileSync(`${repo}/pkg/zarr_wasm_bg.wasm`)))
    throw new Error("the scalar module is the simd128 one");
  const [scalarExports, simdExports] = [
    `${repo}/target/scalar-pkg/zarr_wasm_bg.wasm`,
    `${repo}/pkg/zarr_wasm_bg.wasm`,
  ].map(names);
  if (scalarExports.join() !== simdExports.join())
    throw new Error("the two builds export different functions");
});

for (const c of decodingCases(manifests)) test(`scalar build: ${c.name}`, () => c.run(ctx));
