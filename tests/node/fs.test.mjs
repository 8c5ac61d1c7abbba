// zarr-wasm/fs in Node: FileSystemStore reads the fixtures from disk, directly and as ZIP archives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { open, ZipStore, StoreError } from "zarr-wasm";
import { FileSystemStore } from "zarr-wasm/fs";

const fixtures = new URL("../fixtures/", import.meta.url).pathname;
const expected = (manifest, store, path) => {
  const m = JSON.parse(readFileSync(`${fixtures}/${manifest}`, "utf8"));
  const entry = m.arrays.find((e) => e.store === store && e.path === path);
  return readFileSync(`${fixtures}/${entry.data}`);
};
const bytes = (typed) => Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);

test("FileSystemStore reads v2 and v3 arrays from a directory, shards in ranges", async () => {
  const store = new FileSystemStore(`${fixtures}/v2.zarr`);
  const arr = await open(store, { path: "order/f_3d_int32" });
  assert.deepEqual(
    bytes((await arr.get()).data),
    expected("v2.expected.json", "v2.zarr", "order/f_3d_int32"),
  );
  const calls = [];
  const codecs = new FileSystemStore(`${fixtures}/codecs.zarr`);
  const getRange = codecs.getRange.bind(codecs);
  codecs.getRange = (key, range) => (calls.push(range), getRange(key, range));
  const sharded = await open(codecs, { path: "sharding/index_end" });
  const whole = new Uint16Array(
    expected("v3.expected.json", "codecs.zarr", "sharding/index_end").buffer.slice(0),
  );
  assert.equal((await sharded.get([40, 45])).data[0], whole[40 * 60 + 45]);
  assert.deepEqual(
    calls[0],
    { suffixLength: 260 },
    "the shard index is read from the end of the file",
  );
  assert.equal(calls.length, 2, "and one inner chunk");
});

test("FileSystemStore: ZIP archives on disk, missing keys, keys that would leave the directory", async () => {
  const store = new FileSystemStore(fixtures);
  const arr = await open(new ZipStore(store, "zip/v2_zip64_deflated.zip"), { path: "table" });
  assert.deepEqual(
    bytes((await arr.get()).data),
    expected("v2.expected.json", "v2_consolidated.zarr", "table"),
  );
  assert.equal(await store.get("no/such/key"), undefined);
  assert.equal(await store.getRange("no/such/key", { offset: 0, length: 4 }), undefined);
  const tail = await store.getRange("zip/v2_zarr2.zip", { suffixLength: 22 });
  assert.deepEqual(
    [...tail.subarray(0, 4)],
    [0x50, 0x4b, 0x05, 0x06],
    "a suffix range is the end of the file",
  );
  await assert.rejects(
    open(store, { path: "../../package.json" }),
    (e) => e instanceof Error && e.name === "SelectionError",
  );
  const outside = new FileSystemStore(`${fixtures}/v3.zarr`);
  await assert.rejects(outside.get("../bad.zarr/not_json/zarr.json"), RangeError);
  await assert.rejects(
    open({ get: (k) => outside.get(`../${k}`) }),
    (e) => e instanceof StoreError && /leaves/.test(e.message),
  );
});

test("workers read a MemoryStore of Node Buffers without taking the Buffers' memory", async () => {
  const { MemoryStore, WorkerPool } = await import("zarr-wasm");
  // Small files share one pooled ArrayBuffer in Node: the bytes sent to a worker must be copies.
  const dir = `${fixtures}/v3.zarr/dtypes/uint16`;
  const keys = [
    "zarr.json",
    ...["0/0", "0/1", "0/2", "1/0", "1/1", "1/2", "2/0", "2/1", "2/2"].map((k) => `c/${k}`),
  ];
  const pooled = Buffer.concat(keys.map((k) => readFileSync(`${dir}/${k}`)));
  let at = 0;
  const store = new MemoryStore(
    keys.map((k) => {
      const n = readFileSync(`${dir}/${k}`).length;
      const value = pooled.subarray(at, at + n);
      at += n;
      return [k, value];
    }),
  );
  const pool = new WorkerPool(2);
  try {
    const arr = await open(store, { workers: pool });
    assert.deepEqual(
      bytes((await arr.get()).data),
      expected("v3.expected.json", "v3.zarr", "dtypes/uint16"),
    );
    assert.equal(pooled.buffer.byteLength > 0 && pooled.length, at, "the shared buffer is whole");
    assert.deepEqual(
      bytes((await arr.get()).data),
      expected("v3.expected.json", "v3.zarr", "dtypes/uint16"),
      "and reads again",
    );
  } finally {
    pool.terminate();
  }
});
