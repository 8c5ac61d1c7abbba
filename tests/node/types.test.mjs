// The package's declarations (pkg/index.d.ts) against its code: a typed consumer compiles with
// `tsc --strict` and runs against the built package (and consumers of zarr-wasm/zarrita and
// zarr-wasm/viv with zarrita's and Viv's own types); and the names each d.ts exports are the
// names its module exports.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";
import * as zarr from "zarr-wasm";
import * as plugin from "zarr-wasm/zarrita";
import * as viv from "zarr-wasm/viv";
import * as ome from "zarr-wasm/ome";
import * as converter from "zarr-wasm/convert";
import { startServer } from "../support/server.mjs";

const repo = new URL("../../", import.meta.url).pathname;
let server;
before(async () => {
  server = await startServer({ mounts: { "/": repo } });
});
after(() => server.close());

test("types: a strict TypeScript consumer compiles against index.d.ts (TypeScript 5.9 and 7.0) and runs as it says", async () => {
  const tsc = spawnSync(
    process.execPath,
    [`${repo}/node_modules/typescript/bin/tsc`, "-p", `${repo}/tests/types`],
    { encoding: "utf8" },
  );
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  // The native compiler (TypeScript 7, installed as typescript7) reads the declarations too.
  const tsc7 = spawnSync(
    process.execPath,
    [`${repo}/node_modules/typescript7/bin/tsc`, "-p", `${repo}/tests/types`, "--noEmit"],
    { encoding: "utf8" },
  );
  assert.equal(tsc7.status, 0, `TypeScript 7: ${tsc7.stdout}${tsc7.stderr}`);
  // The compiled consumer resolves "zarr-wasm" from the repository's node_modules.
  const { consume } = await import(`${repo}/target/types/consumer.js`);
  const seen = await consume(`${server.url}/tests/fixtures`);
  const { arrays } = JSON.parse(readFileSync(`${repo}/tests/fixtures/v3.expected.json`, "utf8"));
  const entry = arrays.find((a) => a.store === "v3.zarr" && a.path === "dtypes/uint16");
  const bytes = readFileSync(`${repo}/tests/fixtures/${entry.data}`);
  const written = new Uint16Array(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
  );
  assert.equal(seen.kind, "array");
  assert.equal(seen.dtype, "uint16");
  assert.deepEqual(seen.shape, [5, 11]);
  assert.deepEqual(seen.values, Array.from(written.subarray(0, 5 * 11)));
  assert.ok(seen.progress && seen.progress.chunksDone === seen.progress.chunksTotal);
  assert.equal(seen.parts, 9); // 13 x 11 in chunks of 5 x 4: 3 x 3 chunks
  assert.ok(seen.selectionError, "an out-of-bounds selection is a SelectionError");
  assert.ok(seen.storeReads >= 1);
  assert.equal(seen.groupKind, "group");
  assert.ok(seen.heapBytes > 0);
  // zarr-wasm/zarrita, typed: zarrita with zarr-wasm's zstd, and zarr-wasm through zarrita's store.
  assert.deepEqual(seen.registered, ["zstd"]);
  assert.deepEqual(seen.throughZarritaStore, firstZstdValues());
  assert.deepEqual(seen.gzipDecoded, [104, 105]);
  assert.equal(seen.codecCount, 19);
});

test("types: a strict TypeScript consumer of zarr-wasm/zarrita with zarrita's own types compiles and runs", async () => {
  const tsc = spawnSync(
    process.execPath,
    [`${repo}/node_modules/typescript/bin/tsc`, "-p", `${repo}/tests/types/zarrita`],
    { encoding: "utf8" },
  );
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  const { consumeZarrita } = await import(`${repo}/target/types/zarrita/consumer.js`);
  const seen = await consumeZarrita(`${server.url}/tests/fixtures`);
  const first = firstZstdValues();
  assert.deepEqual(seen, { zarrita: first, zarrWasm: first });
});

test("types: a strict TypeScript consumer of zarr-wasm/viv with Viv's own types (@vivjs/types 0.21) compiles and runs: its PixelSources are Viv's", async () => {
  const tsc = spawnSync(
    process.execPath,
    [`${repo}/node_modules/typescript/bin/tsc`, "-p", `${repo}/tests/types/viv`],
    { encoding: "utf8" },
  );
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  const { consumeViv } = await import(`${repo}/target/types/viv/consumer.js`);
  const { sampleValue } = await import("../support/sample.mjs");
  const seen = await consumeViv(`${server.url}/www/data/sample.ome.zarr`);
  assert.deepEqual(seen.shapes, [
    [2, 2, 1024, 1024],
    [2, 2, 512, 512],
    [2, 2, 256, 256],
  ]);
  assert.equal(seen.dtype, "Uint16");
  assert.deepEqual(seen.labels, ["c", "z", "y", "x"]);
  // Tile (1, 1) of level 0 starts at pixel (128, 128).
  assert.deepEqual(
    seen.firstValues,
    [0, 1, 2].map((i) => sampleValue(1, 0, 128, 128 + i, 1024)),
  );
  assert.deepEqual(seen.widths, [128, 128, 128]);
  assert.equal(seen.aborted, "__vivSignalAborted");
  assert.deepEqual(seen.handMade, {
    labels: ["channel", "plane", "y", "x"],
    tileSize: 256,
    height: 256,
  });
});

/** codecs.zarr/zstd/level3's first 5 values, as zarr-python wrote them (its manifest's file). */
function firstZstdValues() {
  const { arrays } = JSON.parse(readFileSync(`${repo}/tests/fixtures/v3.expected.json`, "utf8"));
  const zstd = arrays.find((a) => a.store === "codecs.zarr" && a.path === "zstd/level3");
  const bytes = readFileSync(`${repo}/tests/fixtures/${zstd.data}`);
  return Array.from(new Uint16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + 10)));
}

for (const [name, module] of [
  ["index", zarr],
  ["zarrita", plugin],
  ["viv", viv],
  ["ome", ome],
  ["convert", converter],
]) {
  test(`types: ${name}.d.ts declares exactly what ${name}.js exports, but the internal hooks`, () => {
    // The hooks of the package's own workers, benchmarks and tests (`__` names) are exported
    // for them, and kept out of the public types (and so out of the API reference).
    const exported = Object.keys(module).sort();
    const declared = declaredValues(`${repo}/pkg/${name}.d.ts`);
    assert.deepEqual(
      declared,
      exported.filter((n) => !n.startsWith("__")),
    );
    assert.ok(!declared.some((n) => n.startsWith("__")), "no internal hook in the public types");
  });
}

/** The values (classes, functions, constants) a declaration file exports, sorted. */
function declaredValues(file) {
  const program = ts.createProgram([file], { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file));
  const declared = checker
    .getExportsOfModule(module)
    .filter((s) => s.flags & (ts.SymbolFlags.Value | ts.SymbolFlags.Alias))
    .filter((s) => {
      // Types and interfaces have no runtime export; classes, functions and constants do.
      const d = s.declarations?.[0];
      return d && !ts.isInterfaceDeclaration(d) && !ts.isTypeAliasDeclaration(d);
    })
    .map((s) => s.name)
    .sort();
  return declared;
}
