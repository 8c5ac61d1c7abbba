// Writing through the JS API (create, set, resize, setAttributes, createGroup, consolidate,
// erase) into stores that write, read back by zarr-wasm's own reader in the same page or process
// (tests/node/write.test.mjs has zarr-python read back what Node writes). The first write loads
// the write build; a page that only reads never asks for it.
import { deepEqual, equal, ok, rejects } from "../support/check.mjs";
import { control, watch } from "../support/watch.mjs";

/** Element (i, j) of the test arrays. */
const value = (i, j) => (i * 131 + j * 7) % 60000;

/** A typed array of `Kind` of rows [r0, r1) and columns [c0, c1) of `value`. */
function block(Kind, r0, r1, c0, c1, f = value) {
  const out = new Kind((r1 - r0) * (c1 - c0));
  let n = 0;
  for (let i = r0; i < r1; i++) for (let j = c0; j < c1; j++) out[n++] = f(i, j);
  return out;
}

/** Checks every element of `data` (rows x cols) against `want(i, j)`. */
function sameAs(data, rows, cols, want, what) {
  equal(data.length, rows * cols, `${what}: elements`);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      const w = want(i, j);
      const got = data[i * cols + j];
      if (!(got === w || (Number.isNaN(got) && Number.isNaN(w))))
        throw new Error(`${what}: element (${i}, ${j}) is ${got}, not ${w}`);
    }
}

/** A MemoryStore whose writes wait a turn, as a real store's do, so that writes interleave. */
function slowStore(zarr) {
  const store = new zarr.MemoryStore();
  const set = store.set.bind(store);
  const del = store.delete.bind(store);
  store.set = async (key, value) => {
    await new Promise((r) => setTimeout(r, 0));
    set(key, value);
  };
  store.delete = async (key) => {
    await new Promise((r) => setTimeout(r, 0));
    del(key);
  };
  return store;
}

export const writeCases = [
  {
    name: "write: the first write loads the writer (write.js and the write build); reads before it never ask for them",
    async run(ctx) {
      const { create, MemoryStore } = ctx.zarr;
      const inBrowser = typeof document !== "undefined";
      // Every read case has run in this page or process before this one: none asked for the
      // writer's code (pkg/write.js) or its build.
      const writer = ["/write.js", "zarr_wasm_write.js", "zarr_wasm_write_bg.wasm"];
      const asked = () =>
        ctx.requests().then((log) => log.filter((r) => writer.some((end) => r.path.endsWith(end))));
      if (inBrowser) deepEqual(await asked(), [], "nothing of the writer before the first write");
      // Asked for during this case alone: a page that had loaded it before would not ask again.
      await ctx.clearLog();
      // A node opened before the write build loads, its attributes not read yet: they are read
      // synchronously after it has replaced the instance (a ResetError once, zarr-wasm/convert).
      const metadata = { zarr_format: 3, node_type: "group", attributes: { kept: [1, 2] } };
      const early = await ctx.zarr.open(
        new MemoryStore([["zarr.json", new TextEncoder().encode(JSON.stringify(metadata))]]),
      );
      await ctx.zarr.preload({ write: true });
      deepEqual(
        early.attrs,
        { kept: [1, 2] },
        "attributes of a node opened before the write build",
      );
      const arr = await create(new MemoryStore(), { shape: [4], dtype: "uint8", chunks: [2] });
      await arr.set(null, 3);
      deepEqual([...(await arr.get()).data], [3, 3, 3, 3], "written");
      if (inBrowser) {
        const paths = (await asked()).map((r) => r.path.slice(r.path.lastIndexOf("/") + 1));
        deepEqual(paths.sort(), ["write.js", "zarr_wasm_write.js", "zarr_wasm_write_bg.wasm"]);
      }
    },
  },
  {
    name: "write: create and set, whole and in part and from one value, read back exactly (v3, v3 sharded with the index at either end, v2 with order F); chunks of the fill value are not stored",
    async run(ctx) {
      const { create, open, slice, MemoryStore } = ctx.zarr;
      const kinds = [
        { zarrFormat: 3 },
        { zarrFormat: 3, shards: [32, 32] },
        {
          zarrFormat: 3,
          shards: [32, 32],
          codecs: [
            { name: "bytes", configuration: { endian: "big" } },
            { name: "gzip", configuration: { level: 1 } },
          ],
        },
        { zarrFormat: 2, order: "F", compressor: { id: "zlib", level: 1 } },
      ];
      for (const kind of kinds) {
        const what = JSON.stringify(kind);
        const store = new MemoryStore();
        const arr = await create(store, {
          path: "x/y",
          shape: [70, 50],
          dtype: "uint16",
          chunks: [16, 8],
          fillValue: 9,
          ...kind,
        });
        equal(arr.dtype, "uint16", `${what}: dtype`);
        await arr.set(null, block(Uint16Array, 0, 70, 0, 50));
        // A tile across chunk (and shard) edges, and a strided row set to one value.
        await arr.set(
          [slice(30, 45), slice(5, 40)],
          block(Uint16Array, 30, 45, 5, 40, (i, j) => i + j),
        );
        await arr.set([slice(0, 70, 20), null], 7);
        const want = (i, j) =>
          i % 20 === 0 ? 7 : i >= 30 && i < 45 && j >= 5 && j < 40 ? i + j : value(i, j);
        sameAs((await arr.get()).data, 70, 50, want, what);
        // A fresh open (no cache) of what the store holds.
        const again = await open(store, { path: "x/y" });
        sameAs((await again.get()).data, 70, 50, want, `${what}, opened again`);
        // All of it back to the fill value: no chunk stored.
        await arr.set(null, 9);
        const chunks = [...store.keys()].filter(
          (k) => k.startsWith("x/y/") && !/zarr\.json|\.zarray/.test(k),
        );
        deepEqual(chunks, [], `${what}: no chunk of the fill value stored`);
        sameAs((await arr.get()).data, 70, 50, () => 9, `${what}: the fill value`);
      }
    },
  },
  {
    name: "write: strings and byte strings (v3 plain and sharded, v2 |O, fixed U and S), whole, in tiles and as one value, read back; wrong kinds refused",
    async run(ctx) {
      const { create, open, MemoryStore, slice } = ctx.zarr;
      const text = (i, j, n) =>
        (i + j + n) % 4 === 0 ? "" : `${n}:${i},${j}${"é😀".repeat((i * 3 + j) % 4)}`;
      const grid = (r0, r1, c0, c1, n) => {
        const out = [];
        for (let i = r0; i < r1; i++) for (let j = c0; j < c1; j++) out.push(text(i, j, n));
        return out;
      };
      for (const options of [
        { dtype: "string" },
        { dtype: "string", shards: [8, 8] },
        { dtype: "string", shards: [8, 8], indexLocation: "start" },
        { dtype: "|O", zarrFormat: 2, order: "F" },
        { dtype: "<U6", zarrFormat: 2 },
      ]) {
        const what = JSON.stringify(options);
        const store = new MemoryStore();
        const arr = await create(store, { shape: [10, 11], chunks: [4, 4], ...options });
        const fixed = options.dtype === "<U6";
        // Fixed-width strings hold at most 6 characters.
        const cut = (t) => (fixed ? [...t].slice(0, 6).join("") : t);
        const want = grid(0, 10, 0, 11, 0).map(cut);
        await arr.set(null, want);
        deepEqual((await arr.get()).data, want, `${what}: whole`);
        const tile = grid(3, 9, 2, 7, 1).map(cut);
        await arr.set([slice(3, 9), slice(2, 7)], tile);
        for (let i = 3; i < 9; i++)
          for (let j = 2; j < 7; j++) want[i * 11 + j] = tile[(i - 3) * 5 + (j - 2)];
        deepEqual((await (await open(store)).get()).data, want, `${what}: a tile, reopened`);
        await arr.set([9, null], "last");
        for (let j = 0; j < 11; j++) want[99 + j] = "last";
        deepEqual((await (await open(store)).get()).data, want, `${what}: one string for a row`);
        await rejects(
          arr.set(null, new Uint8Array(110)),
          "TypeError",
          [/string/],
          `${what}: bytes`,
        );
        await rejects(
          arr.set(null, want.slice(1)),
          "SelectionError",
          [/109/, /110/],
          `${what}: short`,
        );
        if (fixed)
          await rejects(
            arr.set([0, 0], "seven!!"),
            "RangeError",
            [/7 characters/, /6/],
            "too long",
          );
      }
      // Byte strings.
      const store = new MemoryStore();
      const arr = await create(store, { shape: [5], chunks: [2], dtype: "variable_length_bytes" });
      const values = [new Uint8Array([0, 255]), new Uint8Array(0), new Uint8Array([1, 2, 3])];
      await arr.set([slice(0, 3)], values);
      await arr.set([slice(3, 5)], new Uint8Array([9]));
      const got = (await (await open(store)).get()).data.map((v) => [...v]);
      deepEqual(got, [[0, 255], [], [1, 2, 3], [9], [9]], "byte strings");
      await rejects(arr.set([0], "text"), "TypeError", [/Uint8Array/], "a string for bytes");
    },
  },
  {
    name: "write: a node read through a WorkerPool writes through its workers (each a shard of its own) and reads its own writes there: set and resize seen by the next reads, 16 writes at once into one shard kept",
    async run(ctx) {
      const { create, open, MemoryStore, WorkerPool, slice } = ctx.zarr;
      const store = new MemoryStore();
      const made = await create(store, {
        shape: [32, 32],
        dtype: "uint16",
        chunks: [4, 4],
        shards: [16, 16],
      });
      await made.set(null, block(Uint16Array, 0, 32, 0, 32));
      const pool = new WorkerPool(2); // reads wait for its workers
      try {
        const arr = await open(store, { kind: "array", workers: pool });
        // Read in the workers first: they keep its shard indexes and chunks.
        sameAs((await arr.get()).data, 32, 32, value, "before");
        await arr.set([slice(2, 6), slice(2, 6)], 7);
        const after = (i, j) => (i >= 2 && i < 6 && j >= 2 && j < 6 ? 7 : value(i, j));
        sameAs((await arr.get()).data, 32, 32, after, "after a write into one shard");
        await arr.resize([20, 40]);
        deepEqual(arr.shape, [20, 40], "the new shape");
        sameAs(
          (await arr.get()).data,
          20,
          40,
          (i, j) => (j < 32 ? after(i, j) : 0),
          "after a resize",
        );
        // Its workers write: the store's set is called from the pool, which serves their
        // requests, not by this thread's module.
        const callers = [];
        const set = store.set.bind(store);
        store.set = (key, bytes) => {
          callers.push(/serveStore/.test(new Error().stack) ? "workers" : "here");
          return set(key, bytes);
        };
        const whole = block(Uint16Array, 0, 20, 0, 40, (i, j) => i * 40 + j + 1);
        await arr.set(null, whole);
        ok(
          callers.length >= 4 && callers.every((c) => c === "workers"),
          `written by the workers: ${callers}`,
        );
        sameAs((await arr.get()).data, 20, 40, (i, j) => i * 40 + j + 1, "written by the workers");
        sameAs(
          (await (await open(store, { kind: "array" })).get()).data,
          20,
          40,
          (i, j) => i * 40 + j + 1,
          "read on this thread",
        );
        // Writes at once into one shard, through the workers: none loses another's chunks.
        await Promise.all(
          Array.from({ length: 16 }, (_, k) =>
            arr.set([slice(k, k + 1), slice(0, 16)], new Uint16Array(16).fill(9000 + k)),
          ),
        );
        sameAs(
          (await arr.get()).data,
          20,
          40,
          (i, j) => (i < 16 && j < 16 ? 9000 + i : i * 40 + j + 1),
          "16 writes at once",
        );
        // One byte string for every element of a bytes array, through the workers: the value
        // is one Uint8Array, not one byte per element.
        const bytesStore = new MemoryStore();
        await create(bytesStore, {
          shape: [12],
          chunks: [2],
          shards: [4],
          dtype: "variable_length_bytes",
        });
        const pooledBytes = await open(bytesStore, { kind: "array", workers: pool });
        await pooledBytes.get(); // the workers open it
        await pooledBytes.set(null, new Uint8Array([5, 6, 7]));
        deepEqual(
          (await (await open(bytesStore, { kind: "array" })).get()).data.map((v) => [...v]),
          Array.from({ length: 12 }, () => [5, 6, 7]),
          "one byte string everywhere, written by the workers",
        );
        pooledBytes.free();
        // A value of the wrong length: refused before any part is written.
        callers.length = 0;
        await rejects(
          arr.set(null, new Uint16Array(799)),
          "SelectionError",
          [/799/, /800/],
          "short",
        );
        deepEqual(callers, [], "nothing written");
        arr.free();
      } finally {
        pool.terminate();
      }
    },
  },
  {
    name: "write: resize, setAttributes, createGroup, consolidate and erase, each seen by the reader",
    async run(ctx) {
      const { create, createGroup, consolidate, erase, open, MemoryStore, NotFoundError } =
        ctx.zarr;
      const store = new MemoryStore();
      const root = await createGroup(store, { attributes: { name: "root" } });
      deepEqual(root.attrs, { name: "root" }, "the group's attributes");
      const arr = await create(store, {
        path: "g/a",
        shape: [40, 40],
        dtype: "float32",
        chunks: [8, 8],
        fillValue: NaN,
      });
      await arr.set(null, block(Float32Array, 0, 40, 0, 40));
      await arr.resize([20, 50]);
      deepEqual(arr.shape, [20, 50], "the shape, changed in place");
      sameAs(
        (await arr.get()).data,
        20,
        50,
        (i, j) => (j < 40 ? value(i, j) : Number.NaN),
        "resized",
      );
      await arr.setAttributes({ units: "m", scale: [1, 2] });
      deepEqual(arr.attrs, { units: "m", scale: [1, 2] }, "attrs after setAttributes");
      const again = await open(store, { path: "g/a" });
      deepEqual(again.shape, [20, 50], "the shape, opened again");
      deepEqual(again.attrs, { units: "m", scale: [1, 2] }, "the attributes, opened again");
      await consolidate(store);
      const consolidated = await open(store, { consolidated: true });
      const child = await consolidated.open("g/a");
      deepEqual(child.shape, [20, 50], "from the consolidated metadata");
      await erase(store, "g");
      await rejects(open(store, { path: "g/a" }), "NotFoundError", [/g\/a/], "an erased array");
      ok(NotFoundError, "NotFoundError exported");
      ok(
        [...store.keys()].every((k) => !k.startsWith("g/")),
        `nothing left below g: ${[...store.keys()]}`,
      );
    },
  },
  {
    name: "write: 64 concurrent set() calls into one shard keep each other's inner chunks",
    async run(ctx) {
      const { create } = ctx.zarr;
      const store = slowStore(ctx.zarr);
      const arr = await create(store, {
        shape: [32, 32],
        dtype: "uint16",
        chunks: [4, 4],
        shards: [32, 32],
      });
      const { slice } = ctx.zarr;
      await Promise.all(
        Array.from({ length: 64 }, (_, n) => {
          const [r, c] = [Math.floor(n / 8) * 4, (n % 8) * 4];
          return arr.set([slice(r, r + 4), slice(c, c + 4)], n + 1);
        }),
      );
      sameAs(
        (await arr.get()).data,
        32,
        32,
        (i, j) => Math.floor(i / 4) * 8 + Math.floor(j / 4) + 1,
        "every inner chunk",
      );
    },
  },
  {
    name: "write: an aborted set() stops between chunks with an AbortError once the store's writes under way have ended (none after it); what it wrote before stays whole",
    async run(ctx) {
      const { create, MemoryStore } = ctx.zarr;
      const store = new MemoryStore();
      const set = store.set.bind(store);
      // Each write takes 5 ms, as a real store's would, and goes on whatever the signal says.
      let inFlight = 0;
      store.set = async (key, value) => {
        inFlight++;
        await new Promise((r) => setTimeout(r, 5));
        set(key, value);
        inFlight--;
      };
      const arr = await create(store, { shape: [100, 100], dtype: "uint8", chunks: [10, 10] });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 60);
      const t0 = performance.now();
      await rejects(
        arr.set(null, 1, { signal: controller.signal, concurrency: 2 }),
        "AbortError",
        [/abort/],
        "a set aborted part way",
      );
      const took = performance.now() - t0;
      equal(inFlight, 0, "no store write under way once set() has rejected");
      const chunks = [...store.keys()].filter((k) => k.startsWith("c/"));
      await new Promise((r) => setTimeout(r, 20));
      const later = [...store.keys()].filter((k) => k.startsWith("c/"));
      equal(later.length, chunks.length, "nothing written after");
      ok(
        chunks.length > 0 && chunks.length < 100,
        `${chunks.length} of 100 chunks written before the abort`,
      );
      ok(took < 1000, `settled ${took.toFixed(0)} ms after it started (aborted at 60)`);
      for (const key of chunks) ok(store.get(key).length > 0, `${key} whole`);
      await rejects(
        arr.set(null, 2, { signal: AbortSignal.abort() }),
        "AbortError",
        [/aborted before it started/],
        "a signal aborted already",
      );
    },
  },
  {
    name: "write: a value of the wrong type or length, a store that cannot write, and one whose set fails: errors naming what, and nothing written",
    async run(ctx) {
      const { create, open, MemoryStore } = ctx.zarr;
      const store = new MemoryStore();
      const arr = await create(store, {
        shape: [10, 10],
        dtype: "int16",
        chunks: [5, 5],
        fillValue: 0,
      });
      await arr.set(null, 4);
      const before = new Map([...store.map].map(([k, v]) => [k, v.slice()]));
      await rejects(
        arr.set(null, new Float32Array(100)),
        "TypeError",
        [/Float32Array/, /Int16Array/],
        "another typed array",
      );
      await rejects(
        arr.set(null, new Int16Array(99)),
        "SelectionError",
        [/99/, /100/],
        "the wrong length",
      );
      await rejects(arr.set(null, 1.5), "RangeError", [/1.5/, /int16/], "a fraction");
      await rejects(arr.set(null, "x"), "TypeError", [/"x"|x/], "a string");
      deepEqual(
        [...store.map.keys()].sort(),
        [...before.keys()].sort(),
        "no key written or erased",
      );
      for (const [k, v] of before) deepEqual([...store.map.get(k)], [...v], `${k} unchanged`);
      // A store without set: refused before anything is asked of it.
      const readOnly = { get: (key) => store.get(key) };
      const ro = await open(readOnly);
      await rejects(ro.set(null, 1), "UnsupportedError", [/cannot write/], "a store without set");
      // A store whose set fails: a StoreError naming the key; the chunks written before stay.
      const failing = new MemoryStore([...store.map]);
      const set = failing.set.bind(failing);
      failing.set = (key, value) => {
        if (key === "c/1/1") throw new Error("disk full");
        return set(key, value);
      };
      const f = await open(failing);
      await rejects(
        f.set(null, 5, { concurrency: 1 }),
        "StoreError",
        [/c\/1\/1/, /disk full/],
        "a failing set",
      );
      deepEqual(
        [...failing.get("c/1/1")],
        [...before.get("c/1/1")],
        "the failed chunk keeps its old value",
      );
      const kept = (await open(new MemoryStore([...failing.map]))).get();
      ok(
        (await kept).data.every((v) => v === 4 || v === 5),
        "every element is the old or the new value",
      );
    },
  },
  {
    name: "write: bz2 (v2) and pcodec (v3) through the second module's variant for the write build, read back; lzma and zfpy, which it cannot encode, refused at create",
    async run(ctx) {
      const { create, MemoryStore } = ctx.zarr;
      const inBrowser = typeof document !== "undefined";
      await ctx.clearLog();
      const shape = [70, 90];
      const cases = [
        {
          what: "bz2",
          Kind: Int16Array,
          options: { dtype: "int16", zarrFormat: 2, compressor: { id: "bz2", level: 9 } },
        },
        {
          what: "pcodec",
          Kind: Float64Array,
          options: {
            dtype: "float64",
            codecs: [{ name: "numcodecs.pcodec", configuration: { level: 8 } }],
          },
        },
      ];
      for (const { what, Kind, options } of cases) {
        const store = new MemoryStore();
        const arr = await create(store, { shape, chunks: [32, 32], ...options });
        const data = block(Kind, 0, shape[0], 0, shape[1], (i, j) => (i * 37 + j * 11) % 3000);
        await arr.set(null, data);
        const back = (await arr.get()).data;
        deepEqual([...back], [...data], `${what}: read back`);
        ok(store.keys().next().value !== undefined, `${what}: stored`);
      }
      if (inBrowser) {
        const log = await ctx.requests();
        const variant = log.filter((r) => r.path.endsWith("zarr_wasm_extra_write_bg.wasm"));
        equal(variant.length, 1, "the second module's write variant, once");
      }
      for (const [what, options] of [
        ["numcodecs.lzma", { zarrFormat: 2, dtype: "uint8", compressor: { id: "lzma" } }],
        [
          "numcodecs.zfpy",
          { dtype: "float32", codecs: [{ name: "numcodecs.zfpy", configuration: { mode: 4 } }] },
        ],
      ]) {
        await rejects(
          create(new MemoryStore(), { shape: [4], chunks: [4], ...options }),
          "UnsupportedError",
          [new RegExp(what.replace(".", "\\."))],
          `creating with ${what}`,
        );
      }
    },
  },
  {
    name: "write: a 16 MiB chunk (or inner chunk) is compressed in steps (zstd, gzip, Blosc): the event loop waits no longer than a control's beyond 100 ms; an abort stops it between steps and stores nothing",
    async run(ctx) {
      const { create, MemoryStore } = ctx.zarr;
      const [rows, cols] = [2048, 4096]; // one chunk of 16 MiB (uint16)
      const data = new Uint16Array(rows * cols);
      for (let i = 0; i < rows; i++)
        for (let j = 0; j < cols; j++)
          data[i * cols + j] = 1000 + ((i * 3 + j * 5) % 400) + (((i * 7919) ^ (j * 104729)) % 13);
      const calm = await control(400);
      const zstd = [{ name: "bytes" }, { name: "zstd", configuration: { level: 3 } }];
      const gzip = [{ name: "bytes" }, { name: "gzip", configuration: { level: 6 } }];
      const blosc = { id: "blosc", cname: "zstd", clevel: 5, shuffle: 2, blocksize: 0 };
      const cases = [
        { name: "zstd level 3", options: { codecs: zstd } },
        { name: "gzip level 6", options: { codecs: gzip } },
        { name: "Blosc zstd bitshuffle (v2)", options: { zarrFormat: 2, compressor: blosc } },
        {
          name: "sharded, an inner chunk of 16 MiB through zstd",
          options: { codecs: zstd, shards: [rows, cols] },
        },
      ];
      const lines = [];
      for (const c of cases) {
        const arr = await create(new MemoryStore(), {
          shape: [rows, cols],
          dtype: "uint16",
          chunks: [rows, cols],
          ...c.options,
        });
        const seen = await watch(() => arr.set(null, data));
        lines.push(
          `${c.name}: ${seen.took.toFixed(0)} ms, longest wait ${seen.worst.toFixed(0)} ms`,
        );
        ok(
          seen.worst < Math.max(100, 2 * calm.worst),
          `${c.name}: the event loop waited ${seen.worst.toFixed(0)} ms (the control ${calm.worst.toFixed(0)})`,
        );
        const back = (await arr.get()).data;
        ok(
          back.every((v, i) => v === data[i]),
          `${c.name}: read back`,
        );
      }
      console.log(
        `one 16 MiB chunk, on the main thread: ${lines.join("; ")} (control ${calm.worst.toFixed(0)} ms)`,
      );
      // Aborted while its chunk is being compressed: an AbortError, and no chunk stored.
      const store = new MemoryStore();
      const arr = await create(store, {
        shape: [rows, cols],
        dtype: "uint16",
        chunks: [rows, cols],
        codecs: gzip,
      });
      const before = [...store.keys()];
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 30);
      await rejects(
        arr.set(null, data, { signal: stop.signal }),
        "AbortError",
        [],
        "an aborted write",
      );
      deepEqual([...store.keys()], before, "nothing stored");
    },
  },
];
