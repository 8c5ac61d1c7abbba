// What the JS API writes, zarr-python reads: arrays created and written from Node with
// create()/set() (v3 with the default codecs, sharded with the index at either end, v2 with
// its compressors, big endian, NaN fills, a resize and consolidated metadata) stored to a
// directory, then read back by zarr-python with numcodecs' C codecs (scripts/read_back.py, in
// .venv-readers, which scripts/readers_venv.sh makes where it is missing), value for value; the
// v3 ones by zarrita.js 0.7.5 too (plain, and sharded with the index at the end).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as zarr from "zarr-wasm";
import { FileSystemStore } from "zarr-wasm/fs";
import { readdirSync } from "node:fs";
import * as zarrita from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import { control, watch } from "../support/watch.mjs";
import { readersPython } from "../support/readback.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const root = join(repo, "target/write-readback-js");

/** Stores every value of `store` as a file below `dir`. */
function dump(store, dir) {
  for (const key of store.keys()) {
    const file = join(dir, key);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, store.get(key));
  }
}

/** The little-endian bytes of a typed array (this machine's order). */
const bytesOf = (typed) => new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);

test("zarr-python reads back what the JS API writes, value for value; zarrita.js the v3 arrays", {
  timeout: 600_000,
}, async () => {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const manifest = [];
  const cases = [
    { name: "v3_default", dtype: "uint16", Kind: Uint16Array, options: { chunks: [16, 16] } },
    {
      name: "v3_sharded_start_nan",
      dtype: "float32",
      Kind: Float32Array,
      options: { chunks: [8, 8], shards: [32, 32], indexLocation: "start", fillValue: NaN },
    },
    {
      name: "v3_sharded_big_endian",
      dtype: "int32",
      Kind: Int32Array,
      options: {
        chunks: [8, 16],
        shards: [16, 32],
        codecs: [
          { name: "bytes", configuration: { endian: "big" } },
          { name: "zstd", configuration: { level: 7, checksum: true } },
        ],
      },
    },
    {
      name: "v2_zstd_order_f",
      dtype: "float64",
      Kind: Float64Array,
      options: {
        zarrFormat: 2,
        chunks: [10, 12],
        order: "F",
        compressor: { id: "zstd", level: 1 },
      },
    },
    {
      name: "v2_gzip_int64",
      dtype: "int64",
      Kind: BigInt64Array,
      options: { zarrFormat: 2, chunks: [16, 16], compressor: { id: "gzip", level: 5 } },
    },
  ];
  const [rows, cols] = [45, 70];
  for (const c of cases) {
    const store = new zarr.MemoryStore();
    const arr = await zarr.create(store, {
      path: "a",
      shape: [rows, cols],
      dtype: c.dtype,
      ...c.options,
    });
    const big = c.Kind === BigInt64Array;
    const at = (i, j) =>
      big ? BigInt(i * 1000 - j * 3) : c.dtype === "uint16" ? i * 100 + j : i * 1.5 - j;
    const want = new c.Kind(rows * cols).fill(
      big ? 0n : Number.isNaN(c.options.fillValue) ? NaN : 0,
    );
    // Rows 5 to 40 in full, then one column: the rest stays the fill value.
    const part = new c.Kind(35 * cols);
    for (let i = 5; i < 40; i++)
      for (let j = 0; j < cols; j++) part[(i - 5) * cols + j] = want[i * cols + j] = at(i, j);
    await arr.set([zarr.slice(5, 40), null], part);
    await arr.set([null, 3], big ? 77n : 77);
    for (let i = 0; i < rows; i++) want[i * cols + 3] = big ? 77n : 77;
    const got = (await arr.get()).data;
    assert.ok(
      got.every((v, i) => v === want[i] || (Number.isNaN(v) && Number.isNaN(want[i]))),
      `${c.name}: zarr-wasm reads back what it wrote`,
    );
    dump(store, join(root, c.name));
    // zarrita.js reads the v3 ones from the same files; not a shard index at the start (0.7.5
    // reads every index from the shard's end).
    if (c.options.zarrFormat !== 2 && c.options.indexLocation !== "start") {
      const location = zarrita.root(new ZarritaFileSystemStore(join(root, c.name))).resolve("a");
      const read = (await zarrita.get(await zarrita.open.v3(location, { kind: "array" }))).data;
      assert.ok(
        read.length === want.length &&
          read.every((v, i) => v === want[i] || (Number.isNaN(v) && Number.isNaN(want[i]))),
        `${c.name}: zarrita.js reads back what zarr-wasm wrote`,
      );
    }
    const expected = join(root, `${c.name}.expected`);
    writeFileSync(expected, bytesOf(want));
    manifest.push({
      store: join(root, c.name),
      path: "a",
      dtype: c.dtype,
      shape: [rows, cols],
      expected,
    });
  }
  // A resized array and consolidated metadata.
  const store = new zarr.MemoryStore();
  await zarr.createGroup(store, { attributes: { made: "by zarr-wasm" } });
  const arr = await zarr.create(store, {
    path: "g/r",
    shape: [30, 30],
    dtype: "uint8",
    chunks: [8, 8],
  });
  await arr.set(null, 200);
  await arr.resize([12, 40]);
  await arr.setAttributes({ units: "m" });
  await zarr.consolidate(store);
  dump(store, join(root, "consolidated"));
  const expected = join(root, "resized.expected");
  const want = new Uint8Array(12 * 40).map((_, n) => (n % 40 < 30 ? 200 : 0));
  writeFileSync(expected, want);
  manifest.push({
    store: join(root, "consolidated"),
    consolidated: true,
    zarr_format: 3,
    nodes: ["g", "g/r"],
    arrays: [
      { path: "g/r", dtype: "uint8", shape: [12, 40], expected, attributes: { units: "m" } },
    ],
  });
  const manifestFile = join(root, "manifest.json");
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const python = readersPython();
  let report;
  try {
    report = execFileSync(python, [join(repo, "scripts/read_back.py"), manifestFile], {
      encoding: "utf8",
    });
  } catch (err) {
    assert.fail(`zarr-python read back other values:\n${err.stdout}${err.stderr}`);
  }
  console.log(report);
  assert.equal(report.split("\n").filter((l) => l.startsWith("ok ")).length, manifest.length);
});

/** Every file below `dir`, relative. */
function filesBelow(dir, prefix = "") {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesBelow(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  );
}

test("FileSystemStore writes: each value through a temporary file renamed over it, none left behind, an aborted one leaving the old value; erase removes the files; zarr-python reads it", {
  timeout: 600_000,
}, async () => {
  const dir = join(root, "fs");
  rmSync(dir, { recursive: true, force: true });
  const store = new FileSystemStore(dir);
  const arr = await zarr.create(store, {
    path: "a",
    shape: [40, 40],
    dtype: "uint16",
    chunks: [16, 16],
    shards: [32, 32],
  });
  const want = new Uint16Array(1600).map((_, n) => n * 3);
  await arr.set(null, want);
  await arr.set([zarr.slice(0, 5), null], 9);
  for (let n = 0; n < 200; n++) want[n] = 9;
  const files = filesBelow(dir).sort();
  assert.deepEqual(
    files.filter((f) => f.endsWith(".partial")),
    [],
    "no temporary file left",
  );
  assert.deepEqual(
    files,
    ["a/c/0/0", "a/c/0/1", "a/c/1/0", "a/c/1/1", "a/zarr.json", "zarr.json"],
    "the files",
  );
  const again = await zarr.open(new FileSystemStore(dir), { path: "a", kind: "array" });
  assert.ok(
    (await again.get()).data.every((v, i) => v === want[i]),
    "read back from the files",
  );
  const expected = join(root, "fs.expected");
  writeFileSync(expected, bytesOf(want));
  const manifestFile = join(root, "fs-manifest.json");
  writeFileSync(
    manifestFile,
    JSON.stringify([{ store: dir, path: "a", dtype: "uint16", shape: [40, 40], expected }]),
  );
  const python = readersPython();
  execFileSync(python, [join(repo, "scripts/read_back.py"), manifestFile], { encoding: "utf8" });
  // A set whose signal aborts while its 16 MiB are being written: an AbortError, the old value
  // and no temporary file; one aborted before it starts writes nothing.
  const old = readFileSync(join(dir, "a/c/0/0"));
  const stop = new AbortController();
  const big = new Uint8Array(16 << 20).fill(5);
  const setting = store.set("a/c/0/0", big, { signal: stop.signal });
  stop.abort();
  await assert.rejects(setting, { name: "AbortError" });
  await assert.rejects(store.set("a/c/0/1", big, { signal: AbortSignal.abort() }), {
    name: "AbortError",
  });
  assert.deepEqual(readFileSync(join(dir, "a/c/0/0")), old, "the old value stays");
  assert.deepEqual(
    filesBelow(dir).filter((f) => f.endsWith(".partial")),
    [],
    "no temporary file left after the aborted writes",
  );
  await zarr.erase(store, "a");
  assert.deepEqual(
    filesBelow(dir).filter((f) => !f.endsWith("/")),
    ["zarr.json"],
    "erased",
  );
});

/** Runs scripts/read_back.py over `manifest`; every case must read back. */
function readBack(manifest, name) {
  const manifestFile = join(root, `${name}-manifest.json`);
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const python = readersPython();
  try {
    const report = execFileSync(python, [join(repo, "scripts/read_back.py"), manifestFile], {
      encoding: "utf8",
    });
    console.log(report);
    assert.equal(report.split("\n").filter((l) => l.startsWith("ok ")).length, manifest.length);
  } catch (err) {
    assert.fail(`zarr-python or tensorstore read back other values:\n${err.stdout}${err.stderr}`);
  }
}

test("a 2 GiB array (32768 x 32768 uint16, shards of 4096 x 4096) written tile by tile to a FileSystemStore, half on the main thread and half through a WorkerPool: wasm memory under 256 MiB, no wait of the event loop over 100 ms beyond a control's; zarr-python and tensorstore read it", {
  timeout: 1_200_000,
}, async () => {
  const dir = join(root, "two-gib");
  rmSync(dir, { recursive: true, force: true });
  const [SIDE, TILE] = [32768, 4096];
  // Smooth with texture, as an image is: compressible, but not to nothing.
  const at = (i, j) => (i * 3 + j * 5 + (((i * 7919) ^ (j * 104729)) % 61)) & 0xffff;
  const arr = await zarr.create(new FileSystemStore(dir), {
    shape: [SIDE, SIDE],
    dtype: "uint16",
    chunks: [512, 512],
    shards: [TILE, TILE],
  });
  const tile = new Uint16Array(TILE * TILE);
  const calm = await control(400);
  // The first half on this thread, the second through two workers, which encode there.
  const pool = new zarr.WorkerPool(2);
  const pooled = await zarr.open(new FileSystemStore(dir), { kind: "array", workers: pool });
  let [worst, long, wasm, worstAt] = [0, 0, 0, ""];
  const took = [0, 0];
  const fill = (into, r, c) => {
    for (let i = 0; i < TILE; i++)
      for (let j = 0; j < TILE; j++) into[i * TILE + j] = at(r + i, c + j);
    return into;
  };
  const where = (r, c) => [zarr.slice(r, r + TILE), zarr.slice(c, c + TILE)];
  const watched = async (half, work, what) => {
    const seen = await watch(work);
    if (seen.worst > worst) worstAt = what;
    worst = Math.max(worst, seen.worst);
    long += seen.long;
    took[half] += seen.took;
    wasm = Math.max(wasm, zarr.memoryUsage().wasmBytes);
  };
  for (let r = 0; r < SIDE / 2; r += TILE)
    for (let c = 0; c < SIDE; c += TILE) {
      fill(tile, r, c); // not watched: the test's own work
      await watched(0, () => arr.set(where(r, c), tile), `the tile at ${r}, ${c}`);
    }
  // Two tiles at a time through the workers, as a converter would write them.
  const other = new Uint16Array(TILE * TILE);
  for (let r = SIDE / 2; r < SIDE; r += TILE)
    for (let c = 0; c < SIDE; c += 2 * TILE) {
      fill(tile, r, c);
      fill(other, r, c + TILE);
      await watched(
        1,
        () => Promise.all([pooled.set(where(r, c), tile), pooled.set(where(r, c + TILE), other)]),
        `the tiles at ${r}, ${c} (workers)`,
      );
    }
  pool.terminate();
  const rate = (ms) => ((1024 / ms) * 1000).toFixed(0);
  console.log(
    `2 GiB written: the first GiB on the main thread in ${(took[0] / 1000).toFixed(1)} s (${rate(took[0])} MiB/s), the second through 2 workers in ${(took[1] / 1000).toFixed(1)} s (${rate(took[1])} MiB/s); longest wait ${worst.toFixed(0)} ms (writing ${worstAt}), ${long} over 100 ms (control ${calm.worst.toFixed(0)} ms); main thread's wasm memory at most ${(wasm / 2 ** 20).toFixed(0)} MiB`,
  );
  assert.ok(wasm < 256 * 2 ** 20, `wasm memory ${wasm} bytes, under 256 MiB`);
  assert.ok(
    worst < Math.max(150, 2 * calm.worst),
    `the event loop waited ${worst.toFixed(0)} ms at most (the control ${calm.worst.toFixed(0)})`,
  );
  // A region across four shards, read by zarr-wasm from the files and by zarr-python and
  // tensorstore.
  const region = [
    [TILE - 300, TILE + 200],
    [3 * TILE - 100, 3 * TILE + 350],
  ];
  const want = new Uint16Array(500 * 450);
  for (let i = 0; i < 500; i++)
    for (let j = 0; j < 450; j++) want[i * 450 + j] = at(region[0][0] + i, region[1][0] + j);
  const again = await zarr.open(new FileSystemStore(dir), { kind: "array" });
  const got = (await again.get(region.map(([a, b]) => zarr.slice(a, b)))).data;
  assert.ok(
    got.every((v, i) => v === want[i]),
    "zarr-wasm reads the region back from the files",
  );
  const expected = join(root, "two-gib.expected");
  writeFileSync(expected, bytesOf(want));
  readBack(
    [
      {
        store: dir,
        path: "",
        dtype: "uint16",
        shape: [SIDE, SIDE],
        region,
        expected,
        tensorstore: true,
      },
    ],
    "two-gib",
  );
  rmSync(dir, { recursive: true, force: true });
});
