// Reads through a WorkerPool (Web Workers in Chromium, worker_threads in Node): the same results as
// on the main thread for every fixture, each chunk fetched once, errors of the same classes,
// abort, progress, out, every kind of store, groups, iterate and getChunk. Shared by Node and
// headless Chromium like read.mjs.
import { deepEqual, equal, ok, rejects, sameBytes, bytesOf } from "../support/check.mjs";

/**
 * Runs `body(pool)` with a pool of two workers, stopped afterwards. The workers are ready first:
 * with mainThreadWhileStarting, reads asked for before then are read on the main thread, and
 * these tests are of the workers' reads.
 */
async function withPool(ctx, body, options) {
  const pool = new ctx.zarr.WorkerPool(2, options);
  try {
    await pool.ready();
    return await body(pool);
  } finally {
    pool.terminate();
  }
}

/** The same result: data type, shape, stride and every value (bytes for typed arrays). */
function sameResult(actual, expected, what) {
  deepEqual(actual.shape, expected.shape, `${what}: shape`);
  deepEqual(actual.stride, expected.stride, `${what}: stride`);
  sameData(actual.data, expected.data, what);
}

function sameData(actual, expected, what) {
  equal(
    Object.getPrototypeOf(actual).constructor,
    Object.getPrototypeOf(expected).constructor,
    `${what}: type`,
  );
  if (ArrayBuffer.isView(expected)) return sameBytes(bytesOf(actual), bytesOf(expected), what);
  if (Array.isArray(expected)) {
    equal(actual.length, expected.length, `${what}: length`);
    expected.forEach((e, i) =>
      ArrayBuffer.isView(e)
        ? sameBytes(actual[i], e, `${what}[${i}]`)
        : // Elements of an object array are any JS values (lists, objects).
          deepEqual(actual[i], e, `${what}[${i}]`),
    );
    return;
  }
  deepEqual(Object.keys(actual), Object.keys(expected), `${what}: fields`);
  for (const name of Object.keys(expected))
    sameData(actual[name], expected[name], `${what}.${name}`);
}

/** Every other element along the first axis, from the second: parts that start mid-chunk. */
function strided(ctx, shape) {
  return shape.length ? [ctx.zarr.slice(1, undefined, 2), ...shape.slice(1).map(() => null)] : [];
}

/** Every array of a manifest, read whole and strided through the pool and on the main thread. */
function manifestCase(manifest, file) {
  return {
    name: `workers: every array of ${file} (${manifest.arrays.length}) reads the same through a pool of two as on the main thread`,
    async run(ctx) {
      await withPool(ctx, async (pool) => {
        for (const entry of manifest.arrays) {
          const url = `${ctx.base}/${entry.store}`;
          const here = await ctx.zarr.open(url, { path: entry.path });
          const there = await ctx.zarr.open(url, { path: entry.path, workers: pool });
          sameResult(await there.get(), await here.get(), `${entry.store}/${entry.path}`);
          const selection = strided(ctx, entry.shape);
          sameResult(
            await there.get(selection),
            await here.get(selection),
            `${entry.store}/${entry.path} strided`,
          );
          there.free();
        }
      });
    },
  };
}

const chunkRequests = (log) => log.filter((r) => /\/c\//.test(r.path));

const cases = [
  {
    name: "workers: a read is split between the workers, each chunk fetched once, the node's metadata never again; a sharded read splits inside a shard",
    async run(ctx) {
      await withPool(
        ctx,
        async (pool) => {
          const { open } = ctx.zarr;
          const arr = await open(`${ctx.base}/v3.zarr`, {
            path: "layouts/many_chunks",
            workers: pool,
          }); // 16 x 16 chunks
          const here = await open(`${ctx.base}/v3.zarr`, { path: "layouts/many_chunks" });
          await ctx.clearLog();
          sameResult(await arr.get(), await here.get(), "many_chunks");
          const log = await ctx.requests();
          const chunks = chunkRequests(log).map((r) => r.path);
          equal(
            chunks.length,
            256 * 2,
            "each chunk once by the workers and once by the main thread's read",
          );
          equal(new Set(chunks).size, 256, "256 distinct chunks");
          const metadata = log.filter((r) => r.path.endsWith("/zarr.json"));
          deepEqual(
            metadata,
            [],
            "both workers read parts, and opened the node from what the main thread had read",
          );

          // 2 x 2 shards of 4 x 4 inner chunks: as many shards as workers or more, so each shard is
          // one worker's, fetched once (whole: most of it is wanted).
          const sharded = await open(`${ctx.base}/codecs.zarr`, {
            path: "sharding/index_end",
            workers: pool,
          });
          const direct = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" });
          deepEqual(
            [direct.chunks, direct.innerChunks, arr.innerChunks],
            [[32, 32], [8, 8], null],
            "shard and inner chunk shapes",
          );
          await ctx.clearLog();
          sameResult(await sharded.get(), await direct.get(), "sharded");
          const whole = (await ctx.requests()).filter((r) => /\/c\//.test(r.path));
          equal(whole.length, 4 * 2, "four shards, by the workers and by the main thread");
          equal(new Set(whole.map((r) => r.path)).size, 4, "each shard once per reader");
          // One shard's worth: fewer shards than workers, so its inner chunks are split between them.
          const { slice } = ctx.zarr;
          const shardRanges = async () =>
            (await ctx.requests()).filter((r) => /\/c\//.test(r.path)).map((r) => r.range);
          await ctx.clearLog();
          const split = await sharded.get([slice(0, 32), slice(0, 32)]);
          const ranges = await shardRanges();
          sameResult(split, await direct.get([slice(0, 32), slice(0, 32)]), "one shard");
          // Its index fetched once for the page (the main thread hands it to both workers), its
          // inner chunks by both workers.
          equal(ranges.filter((r) => /^bytes=-/.test(r)).length, 1, `one index request: ${ranges}`);
          ok(
            ranges.filter((r) => /^bytes=\d/.test(r)).length >= 2,
            `inner chunk ranges: ${ranges}`,
          );
          await ctx.clearLog();
          await sharded.get([slice(8, 24), slice(8, 24)]);
          deepEqual(
            (await shardRanges()).filter((r) => /^bytes=-/.test(r)),
            [],
            "another region of the shard: its index is not asked for again",
          );
        },
        { splitBytes: 0 },
      ); // these reads are small: split only because the pool is told to
    },
  },
  {
    name: "workers: with mainThreadWhileStarting, reads before a worker is ready are read on the main thread and the workers start after the first view (the reads asked for before the first settled), or a later read; without it (the default) open() starts them and reads wait for them",
    async run(ctx) {
      const { open, WorkerPool } = ctx.zarr;
      const path = "dtypes/uint16";
      const wanted = await (await open(`${ctx.base}/v3.zarr`, { path })).get();
      /** A fresh pool whose reads handed to the workers are counted. */
      const counted = (options) => {
        const pool = new WorkerPool(2, options);
        const run = pool.run.bind(pool);
        pool.handed = 0;
        pool.run = (...args) => {
          pool.handed++;
          return run(...args);
        };
        return pool;
      };
      equal(new WorkerPool(1).mainThreadWhileStarting, false, "the default");
      const pool = counted({ mainThreadWhileStarting: true });
      try {
        const arr = await open(`${ctx.base}/v3.zarr`, { path, workers: pool });
        equal(pool.started, undefined, "open() does not start the workers");
        const first = await arr.get();
        sameResult(first, wanted, "the first read");
        equal(pool.handed, 0, "the first read was read on the main thread");
        ok(pool.started, "the workers start once it has settled");
        await pool.ready();
        ok(pool.anyReady, "ready() resolves once the workers are");
        sameResult(await arr.get(), wanted, "a read once they are ready");
        sameResult(
          await arr.getChunk([0, 0]),
          await (await open(`${ctx.base}/v3.zarr`, { path })).getChunk([0, 0]),
          "a chunk",
        );
        ok(pool.handed >= 2, `the later reads went to the workers (${pool.handed} handed over)`);
      } finally {
        pool.terminate();
      }
      // A first view of two reads, one from a slow server: the workers wait for both.
      const slowBase = `${ctx.origin}/__slow/300/tests/fixtures/v3.zarr`;
      const viewPool = counted({ mainThreadWhileStarting: true });
      try {
        const fast = await open(`${ctx.base}/v3.zarr`, { path, workers: viewPool });
        const slow = await open(slowBase, { path, workers: viewPool });
        const slowRead = slow.get();
        sameResult(await fast.get(), wanted, "the first view's fast read");
        equal(viewPool.started, undefined, "the workers wait for the first view's slow read");
        sameResult(await slowRead, wanted, "the first view's slow read");
        ok(viewPool.started, "the workers start once the first view has settled");
      } finally {
        viewPool.terminate();
      }
      // A read asked for after the first view's first settled does not wait for the rest of it.
      const laterPool = counted({ mainThreadWhileStarting: true });
      try {
        const fast = await open(`${ctx.base}/v3.zarr`, { path, workers: laterPool });
        const slow = await open(slowBase, { path, workers: laterPool });
        const slowRead = slow.get();
        await fast.get();
        equal(laterPool.started, undefined, "the first view's slow read is still in flight");
        sameResult(await fast.get(), wanted, "a later read");
        ok(laterPool.started, "the later read, done, starts the workers");
        sameResult(await slowRead, wanted, "the first view's slow read, once the workers started");
      } finally {
        laterPool.terminate();
      }
      const waiting = counted();
      try {
        const arr = await open(`${ctx.base}/v3.zarr`, { path, workers: waiting });
        ok(waiting.started, "open() starts the workers of a pool whose reads wait for them");
        sameResult(await arr.get(), wanted, "a read that waits for the workers");
        equal(waiting.handed, 1, "it went to the workers, ready or not");
      } finally {
        waiting.terminate();
      }
      for (const bad of [1, "no"])
        await rejects(
          (async () => new WorkerPool(1, { mainThreadWhileStarting: bad }))(),
          "TypeError",
          [/mainThreadWhileStarting must be a boolean/],
          `mainThreadWhileStarting: ${bad}`,
        );
    },
  },
  {
    name: "workers: a read smaller than the pool's splitBytes (1 MiB by default) goes to one worker whole, with the requests the main thread would make",
    async run(ctx) {
      await withPool(ctx, async (pool) => {
        const { open, slice } = ctx.zarr;
        equal(pool.splitBytes, 1 << 20, "the default");
        const sharded = await open(`${ctx.base}/codecs.zarr`, {
          path: "sharding/index_end",
          workers: pool,
        });
        const direct = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" });
        const region = [slice(0, 32), slice(0, 32)]; // one shard's 4 x 4 inner chunks
        const shardRequests = async (arr) => {
          await ctx.clearLog();
          const result = await arr.get(region);
          const log = (await ctx.requests()).filter((r) => /\/c\//.test(r.path));
          return { result, ranges: log.map((r) => r.range).sort() };
        };
        const here = await shardRequests(direct);
        const there = await shardRequests(sharded);
        sameResult(there.result, here.result, "one shard");
        deepEqual(there.ranges, here.ranges, "the same requests: index and merged ranges, once");
      });
    },
  },
  {
    name: "workers: errors cross as their classes and name the chunk; abort stops the workers' reads",
    async run(ctx) {
      await withPool(ctx, async (pool) => {
        const { open, slice } = ctx.zarr;
        const bad = await open(`${ctx.base}/bad.zarr`, { path: "truncated_gzip", workers: pool });
        await rejects(bad.get(), "CodecError", [/gzip/, /truncated_gzip\/c/], "a corrupt chunk");
        const missing = await open(`${ctx.origin}/__status/500/tests/fixtures/v3.zarr`, {
          path: "dtypes/uint16",
        }).catch((e) => e);
        equal(missing.name, "StoreError", "a 500 on opening");
        const arr = await open(`${ctx.base}/v3.zarr`, { path: "dtypes/uint16", workers: pool });
        await rejects(
          arr.get([slice(0, 99, -1), null]),
          "SelectionError",
          [/step/],
          "a bad selection, refused on the main thread",
        );
        await rejects(arr.getChunk([9, 9]), "SelectionError", [/9/], "a chunk outside the grid");

        const slow = await open(`${ctx.origin}/__slow/300/tests/fixtures/v3.zarr`, {
          path: "layouts/many_chunks",
          workers: pool,
        });
        const controller = new AbortController();
        const reading = slow.get(null, { signal: controller.signal });
        setTimeout(() => controller.abort("the user panned away"), 50);
        await rejects(reading, "AbortError", [/panned away/], "an aborted read");
        await rejects(
          slow.get(null, { signal: controller.signal }),
          "AbortError",
          [/aborted/],
          "an already aborted signal",
        );
        // The workers stop too: nothing is left in flight soon after the slow requests return.
        let active = Infinity;
        for (let i = 0; i < 40 && active > 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
          active = await ctx.active();
        }
        equal(active, 0, "requests in flight after the abort");
        sameResult(
          await arr.get(),
          await (await open(`${ctx.base}/v3.zarr`, { path: "dtypes/uint16" })).get(),
          "the pool reads on",
        );
      });
    },
  },
  {
    name: "workers: onProgress counts up to the total; out receives the parts; iterate, getChunk and group children use the pool",
    async run(ctx) {
      await withPool(ctx, async (pool) => {
        const { open, slice } = ctx.zarr;
        const arr = await open(`${ctx.base}/v3.zarr`, {
          path: "layouts/many_chunks",
          workers: pool,
        });
        const here = await open(`${ctx.base}/v3.zarr`, { path: "layouts/many_chunks" });
        const reports = [];
        await ctx.clearLog();
        const whole = await arr.get(null, { onProgress: (p) => reports.push(p) });
        const last = reports[reports.length - 1];
        deepEqual(
          [last.chunksDone, last.chunksTotal],
          [256, 256],
          "the last report: all chunks done",
        );
        ok(
          reports.every((r, i) => i === 0 || r.chunksDone >= reports[i - 1].chunksDone),
          "chunks done only grow",
        );
        const chunkBytes = chunkRequests(await ctx.requests()).reduce((n, r) => n + r.bytes, 0);
        equal(last.bytesFetched, chunkBytes, "bytes fetched: the chunks the server sent");
        equal(last.requests, 256, "requests: one per chunk");

        const out = new Uint8Array(whole.data.length);
        const into = await arr.get(null, { out });
        ok(into.data === out, "the result's data is the caller's array");
        sameBytes(out, whole.data, "values in out");
        await rejects(
          arr.get(null, { out: new Uint8Array(3) }),
          "RangeError",
          [/Uint8Array of length/],
          "out of the wrong length",
        );

        const parts = [];
        for await (const part of arr.iterate([slice(0, 8), null])) parts.push(part);
        equal(parts.length, 32, "one part per chunk (two rows of sixteen)");
        sameResult(parts[3], await here.get([slice(0, 4), slice(12, 16)]), "an iterated part");
        sameResult(await arr.getChunk([2, 3]), await here.getChunk([2, 3]), "getChunk");

        const root = await open(`${ctx.base}/v3.zarr`, { workers: pool });
        const child = await root.open("layouts/many_chunks");
        await ctx.clearLog();
        sameResult(await child.get([5, null]), await here.get([5, null]), "a group's child");
        const log = await ctx.requests();
        deepEqual(
          log.filter((r) => r.path.endsWith("many_chunks/zarr.json")),
          [],
          "the workers opened the child from the documents the main thread read",
        );
        child.free();
        await rejects(child.get(), "SelectionError", [/freed/], "a freed node");
      });
    },
  },
  {
    name: "workers: stores objects are read through the main thread; ZIP archives and FetchStore options go to the workers",
    async run(ctx) {
      await withPool(ctx, async (pool) => {
        const { open, MemoryStore, ZipStore, FetchStore } = ctx.zarr;
        const wanted = await (await open(`${ctx.base}/v3.zarr`, { path: "dtypes/float64" })).get();
        const memory = new MemoryStore();
        for (const key of [
          "zarr.json",
          "c/0/0",
          "c/0/1",
          "c/0/2",
          "c/1/0",
          "c/1/1",
          "c/1/2",
          "c/2/0",
          "c/2/1",
          "c/2/2",
        ]) {
          memory.set(key, await ctx.bytes(`v3.zarr/dtypes/float64/${key}`));
        }
        sameResult(await (await open(memory, { workers: pool })).get(), wanted, "a MemoryStore");

        const asked = [];
        const own = { get: (key) => (asked.push(key), memory.get(key)) };
        sameResult(
          await (await open(own, { workers: pool })).get(),
          wanted,
          "a store object without getRange",
        );
        ok(
          asked.some((k) => k.startsWith("c/")),
          "chunks were asked of the main thread's store",
        );
        const failing = {
          get: (key) =>
            key === "zarr.json" ? memory.get(key) : Promise.reject(new Error("disk on fire")),
        };
        await rejects(
          (await open(failing, { workers: pool })).get(),
          "StoreError",
          [/disk on fire/],
          "a store object that fails",
        );

        const headers = new FetchStore(`${ctx.base}/v3.zarr`, { headers: { "X-Token": "secret" } });
        await ctx.clearLog();
        sameResult(
          await (await open(headers, { path: "dtypes/float64", workers: pool })).get(),
          wanted,
          "a FetchStore with headers",
        );
        // This array's chunk requests only: another test's reads may still be ending.
        const chunkRequests = (await ctx.requests()).filter((r) =>
          r.path.includes("/dtypes/float64/c/"),
        );
        ok(
          chunkRequests.length > 0 && chunkRequests.every((r) => r.token === "secret"),
          "the workers send the headers",
        );
        const custom = new FetchStore(`${ctx.base}/v3.zarr`, { fetch: (r) => fetch(r) });
        await rejects(
          open(custom, { path: "dtypes/float64", workers: pool }),
          "UnsupportedError",
          [/fetch function/],
          "a fetch function",
        );

        const archive = `${ctx.base}/zip/v3_sharded_zarr3.zip`;
        const zipped = await open(new ZipStore(archive), {
          path: "sharding/index_end",
          workers: pool,
        });
        sameResult(
          await zipped.get(),
          await (await open(new ZipStore(archive), { path: "sharding/index_end" })).get(),
          "a ZIP archive over HTTP",
        );
        const inMemory = new ZipStore(
          new MemoryStore([["data.zip", await ctx.bytes("zip/v3_deflated_zarr3.zip")]]),
          "data.zip",
        );
        const nested = await open(inMemory, { path: "sharding/nested", workers: pool });
        sameResult(
          await nested.get(),
          await (await open(inMemory, { path: "sharding/nested" })).get(),
          "a deflated ZIP in a MemoryStore",
        );
        await rejects(
          open(`${ctx.base}/v3.zarr`, { workers: 0.5 }),
          "RangeError",
          [/workers/],
          "a bad workers option",
        );
      });
    },
  },
  {
    name: "workers: a throwing onProgress is ignored, a bad one refused; free() and terminate() during reads",
    async run(ctx) {
      const { open, slice, WorkerPool } = ctx.zarr;
      await withPool(ctx, async (pool) => {
        const arr = await open(`${ctx.base}/v3.zarr`, {
          path: "layouts/many_chunks",
          workers: pool,
        });
        const here = await (
          await open(`${ctx.base}/v3.zarr`, { path: "layouts/many_chunks" })
        ).get();
        let calls = 0;
        const read = await arr.get(null, {
          onProgress: () => {
            calls++;
            throw new Error("the callback's own bug");
          },
        });
        ok(calls > 0, "the callback was called");
        sameResult(read, here, "a read whose callback throws");
        await rejects(
          arr.get(null, { onProgress: 3 }),
          "TypeError",
          [/onProgress/],
          "a bad onProgress",
        );

        // Freed while reading: the read started finishes; later ones are refused.
        const slow = await open(`${ctx.origin}/__slow/100/tests/fixtures/v3.zarr`, {
          path: "layouts/many_chunks",
          workers: pool,
        });
        const reading = slow.get([slice(0, 8), null]);
        slow.free();
        sameResult(
          await reading,
          await (await open(`${ctx.base}/v3.zarr`, { path: "layouts/many_chunks" })).get([
            slice(0, 8),
            null,
          ]),
          "a read started before free()",
        );
        await rejects(slow.get(), "SelectionError", [/freed/], "a read after free()");

        const metadata = await ctx.bytes("v3.zarr/dtypes/uint16/zarr.json");
        const wrong = { get: (key) => (key === "zarr.json" ? metadata : "not bytes") };
        const odd = await open(wrong, { workers: pool });
        await rejects(
          odd.get(),
          "StoreError",
          [/not a Uint8Array/, /c\/\d\/\d/],
          "a store object returning a string",
        );
      });
      const pool = new WorkerPool(2);
      const arr = await open(`${ctx.origin}/__slow/200/tests/fixtures/v3.zarr`, {
        path: "layouts/many_chunks",
        workers: pool,
      });
      await pool.ready(); // the read is the workers' (before, it would be the main thread's)
      const reading = arr.get();
      setTimeout(() => pool.terminate(), 50);
      await rejects(
        reading,
        "WorkerError",
        [/terminated/, /many_chunks/],
        "a read when its pool is terminated",
      );
      await rejects(arr.get(), "WorkerError", [/terminated/], "and reads after");
    },
  },
];

export function workerCases(manifests, files) {
  return [...manifests.map((m, i) => manifestCase(m, files[i])), ...cases];
}
