// The read API beyond get(selection): progress, concurrency, reading into the caller's buffer,
// chunk-by-chunk iteration, freeing nodes and memory over many reads. Shared by Node and
// headless Chromium like read.mjs.
import { bytesOf, deepEqual, equal, ok, rejects, sameBytes } from "../support/check.mjs";

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

export const apiCases = [
  {
    name: "open's kind asks for an array or a group (the other kind is a NotFoundError naming what is there); is() tells data types and their families; reading from a group names its children",
    async run(ctx) {
      const { open, NotFoundError } = ctx.zarr;
      const image = `${ctx.origin}/www/data/sample.ome.zarr`;
      const arr = await open(image, { kind: "array", path: "0" });
      equal(arr.kind, "array", "kind: array");
      const root = await open(image, { kind: "group" });
      equal(root.kind, "group", "kind: group");
      // The usual slip: an OME-Zarr image's root group where an array was meant.
      const wrong = await rejects(
        open(image, { kind: "array" }),
        "NotFoundError",
        [/no array at .*sample\.ome\.zarr: it is a group: its children are "0", "1", "2"/],
        "a group asked for as an array",
      );
      ok(wrong instanceof NotFoundError, "a NotFoundError");
      await rejects(
        open(image, { kind: "group", path: "1" }),
        "NotFoundError",
        [/no group at .*sample\.ome\.zarr\/1: it is an array/],
        "an array asked for as a group",
      );
      await rejects(
        root.open("2", { kind: "group" }),
        "NotFoundError",
        [/it is an array/],
        "a group's child of the other kind",
      );
      equal((await root.open("2", { kind: "array" })).shape.join(), "2,2,256,256", "child");
      await rejects(
        root.get([0, 0, 0, 0]),
        "TypeError",
        [/is a group, not an array, so it has no get\(\): its children are "0", "1", "2"/],
        "get on a group",
      );
      await rejects(root.getChunk([0]), "TypeError", [/no getChunk\(\)/], "getChunk on a group");
      await rejects(root.iterate().next(), "TypeError", [/no iterate\(\)/], "iterate on a group");
      const plain = await open(`${ctx.base}/v3.zarr`, { kind: "group" });
      await rejects(
        plain.get(),
        "TypeError",
        [/children are not listed \(no consolidated metadata\)/],
        "a group that does not list its children says so",
      );
      await rejects(
        open(image, { kind: "arrays" }),
        "RangeError",
        [/open option kind must be one of "array", "group", not "arrays"/],
        "a bad kind",
      );

      deepEqual(
        ["uint16", "number", "bigint", "string", "boolean", "float32"].map((q) => arr.is(q)),
        [true, true, false, false, false, false],
        "uint16 is a number type",
      );
      for (const [path, yes, no] of [
        ["dtypes/int64", ["int64", "bigint"], ["number", "string", "uint64"]],
        ["dtypes/float32", ["float32", "number"], ["bigint", "float64"]],
        ["dtypes/bool", ["bool", "boolean"], ["number", "bigint"]],
        ["dtypes/complex64", ["complex64"], ["number", "bigint", "string"]],
      ]) {
        const typed = await open(`${ctx.base}/v3.zarr`, { kind: "array", path });
        for (const q of yes) ok(typed.is(q), `${path} is ${q}`);
        for (const q of no) ok(!typed.is(q), `${path} is not ${q}`);
        typed.free();
      }
      const strings = await open(`${ctx.base}/codecs.zarr`, { kind: "array", path: "vlen/utf8" });
      ok(strings.is("string") && !strings.is("number"), "vlen-utf8 is a string type");
      const values = (await strings.get()).data;
      ok(typeof values[0] === "string", "whose values are strings");
      for (const node of [arr, root, plain, strings]) node.free();
    },
  },
  {
    name: "options: a key a call does not take is a TypeError naming it, the nearest valid key and all of them; a bad value is a TypeError or RangeError naming the option; a foreign store's missing node says how to wrap a zarrita.js store",
    async run(ctx) {
      const { open, FetchStore, ZipStore, bytesDecoder, preload } = ctx.zarr;
      const url = `${ctx.base}/v3.zarr`;
      await rejects(
        open(url, { pth: "dtypes/uint16" }),
        "TypeError",
        [/open has no option "pth" \(did you mean "path"\?\): its options are path, kind, /],
        "a misspelt open option",
      );
      const arr = await open(url, { path: "dtypes/uint16", kind: "array" });
      await rejects(
        arr.get(null, { concurency: 2 }),
        "TypeError",
        [/get has no option "concurency" \(did you mean "concurrency"\?\)/],
        "a misspelt read option",
      );
      await rejects(
        arr.get(null, { concurrency: 2000 }),
        "RangeError",
        [/get option concurrency must be an integer from 1 to 1024, not 2000/],
        "an option out of range",
      );
      await rejects(
        arr.get(null, { concurrency: "2" }),
        "TypeError",
        [/get option concurrency must be an integer/],
        "an option of the wrong type",
      );
      await rejects(arr.iterate(null, { ahead: 2 }).next(), "TypeError", [/"ahead"/], "iterate");
      await rejects(arr.getChunk([0, 0], { singal: null }), "TypeError", [/"singal"/], "getChunk");
      await rejects(
        bytesDecoder({ name: "gzip" }, { maxbytes: 5 }),
        "TypeError",
        [/"maxBytes"/],
        "bytesDecoder",
      );
      await rejects(preload({ vector: true }), "TypeError", [/"vectors"/], "preload");
      const construct = async (f) => f();
      await rejects(
        construct(() => new FetchStore(url, { retires: 3 })),
        "TypeError",
        [/FetchStore has no option "retires" \(did you mean "retries"\?\)/],
        "a misspelt FetchStore option",
      );
      await rejects(
        construct(() => new FetchStore(url, { credentials: "always" })),
        "RangeError",
        [/FetchStore option credentials must be one of "omit", "same-origin", "include"/],
        "a FetchStore option's bad choice",
      );
      await rejects(
        construct(() => new ZipStore(url, "a.zip", { cachesize: 5 })),
        "TypeError",
        [/ZipStore has no option "cachesize" \(did you mean "cacheSize"\?\)/],
        "a ZipStore option",
      );
      await rejects(
        open(url, { limits: { maxChunksPerRead: 0 } }),
        "RangeError",
        [/open option limits\.maxChunksPerRead must be an integer from 1/],
        "a limit out of range",
      );

      // A zarrita.js store's keys start with "/": handed to open() as it is, the node is not found
      // where it is, and the error says how to wrap it.
      const zarritaLike = {
        async get(key) {
          if (!key.startsWith("/")) return undefined;
          const response = await fetch(`${url}${key}`);
          return response.ok ? new Uint8Array(await response.arrayBuffer()) : undefined;
        },
      };
      await rejects(
        open(zarritaLike, { path: "dtypes/uint16" }),
        "NotFoundError",
        [
          /no Zarr node at/,
          /wrap it: open\(zarritaStore\(store\)\), with zarritaStore from "zarr-wasm\/zarrita"/,
        ],
        "a zarrita.js store given as it is",
      );
      arr.free();
    },
  },
  {
    name: "releaseMemory(): a node (from open(), or a group's child) reopens in the fresh instance from the documents it was opened from, with no request",
    async run(ctx) {
      const { open, releaseMemory } = ctx.zarr;
      const arr = await open(`${ctx.base}/v3.zarr`, { path: "layouts/many_chunks" });
      const child = await (await open(`${ctx.base}/v3.zarr`)).open("dtypes/uint16");
      const before = await arr.get(null);
      const childBefore = await child.get(null);
      equal(releaseMemory(), true, "nothing in flight: the instance is replaced");
      await ctx.clearLog();
      const after = await arr.get(null);
      sameBytes(bytesOf(after.data), bytesOf(before.data), "the values after");
      const childAfter = await child.get(null);
      sameBytes(bytesOf(childAfter.data), bytesOf(childBefore.data), "a group's child after");
      // (Nodes other cases left open reopen too; a Zarr Vectors store asks its store again.)
      const asked = (await ctx.requests()).map((r) => r.path);
      deepEqual(
        asked.filter(
          (p) => /\/(layouts\/many_chunks|dtypes\/uint16)\//.test(p) && !/\/c\//.test(p),
        ),
        [],
        "no metadata request of their own: only their chunks were asked for",
      );
      ok(
        asked.some((p) => p.includes("/layouts/many_chunks/c/")),
        "its chunks were",
      );
      arr.free();
      child.free();
    },
  },
  {
    name: "onProgress reports chunks done of the total and the bytes fetched; concurrency bounds the chunks in flight",
    async run(ctx) {
      const { open } = ctx.zarr;
      const arr = await open(`${ctx.base}/v3.zarr`, { path: "layouts/many_chunks" }); // 16 x 16 chunks
      const reports = [];
      await ctx.clearLog();
      await arr.get(null, { onProgress: (p) => reports.push(p) });
      const log = await ctx.requests();
      equal(reports.length, 256, "a report per chunk");
      ok(
        reports.every((r, i) => r.chunksDone === i + 1 && r.chunksTotal === 256),
        "chunks done count up to the total",
      );
      equal(
        reports[255].bytesFetched,
        log.reduce((sum, r) => sum + r.bytes, 0),
        "bytes fetched: what the server sent",
      );
      equal(reports[255].requests, log.length, "requests: what the server saw");
      ok(
        reports.every((r, i) => i === 0 || r.bytesFetched >= reports[i - 1].bytesFetched),
        "bytes only grow",
      );

      const slow = await open(`${ctx.origin}/__slow/20/tests/fixtures/v3.zarr`, {
        path: "layouts/many_chunks",
      });
      await ctx.clearLog();
      const part = await slow.get([ctx.zarr.slice(0, 16), null], { concurrency: 2 });
      deepEqual(part.shape, [16, 64], "the read is right");
      const peak = Math.max(...(await ctx.requests()).map((r) => r.active));
      ok(peak <= 2, `at most 2 chunks in flight, saw ${peak}`);
      await rejects(
        arr.get(null, { concurrency: 0 }),
        "RangeError",
        [/concurrency/],
        "a bad concurrency",
      );
      await rejects(
        arr.get(null, { onProgress: 3 }),
        "TypeError",
        [/onProgress/],
        "a bad onProgress",
      );
      let calls = 0;
      const throwing = await arr.get([0, null], {
        onProgress: () => {
          calls++;
          throw new Error("the callback's own bug");
        },
      });
      ok(calls === 16 && throwing.shape[0] === 64, "a callback that throws does not stop the read");
    },
  },
  {
    name: "out: a read writes into the caller's typed array of the right type and length, or says what it needs",
    async run(ctx) {
      const { open, slice } = ctx.zarr;
      const arr = await open(`${ctx.base}/v3.zarr`, { path: "dtypes/uint16" }); // 13 x 11
      const whole = (await arr.get()).data;
      const out = new Uint16Array(5 * 11);
      const r = await arr.get([slice(2, 7), null], { out });
      ok(r.data === out, "the result's data is the caller's array");
      deepEqual(Array.from(out), Array.from(whole.subarray(22, 77)), "values");
      const inBig = new Uint16Array(new ArrayBuffer(200), 40, 55);
      await arr.get([slice(2, 7), null], { out: inBig });
      deepEqual(Array.from(inBig), Array.from(out), "a view at an offset into a larger buffer");
      await rejects(
        arr.get([slice(2, 7), null], { out: new Uint16Array(54) }),
        "RangeError",
        [/Uint16Array of length 55/],
        "wrong length",
      );
      await rejects(
        arr.get(null, { out: new Int16Array(143) }),
        "TypeError",
        [/Uint16Array/],
        "wrong type",
      );
      const strings = await open(`${ctx.base}/codecs.zarr`, { path: "vlen/utf8" });
      await rejects(
        strings.get(null, { out: new Uint8Array(50) }),
        "TypeError",
        [/numeric results/],
        "strings",
      );
      const i64 = await open(`${ctx.base}/v3.zarr`, { path: "dtypes/int64" });
      const big = new BigInt64Array(143);
      await i64.get(null, { out: big });
      sameBytes(bytesOf(big), bytesOf((await i64.get()).data), "int64 into a BigInt64Array");
    },
  },
  {
    name: "iterate() yields each chunk's part of a selection with its place; the parts make the whole; leaving early cancels",
    async run(ctx) {
      const { open, slice } = ctx.zarr;
      const arr = await open(`${ctx.base}/v3.zarr`, { path: "layouts/d3" }); // int32 [7, 6, 5] in [3, 4, 2]
      const selection = [slice(1, 7, 2), -2, slice(null, -1)];
      const want = await arr.get(selection);
      const got = new Int32Array(want.data.length);
      const seen = [];
      for await (const part of arr.iterate(selection)) {
        seen.push(part.coords.join());
        for (let i = 0; i < part.shape[0]; i++) {
          for (let k = 0; k < part.shape[1]; k++)
            got[(part.origin[0] + i) * want.shape[1] + part.origin[1] + k] =
              part.data[i * part.stride[0] + k];
        }
      }
      deepEqual(
        seen,
        ["0,1,0", "0,1,1", "1,1,0", "1,1,1"],
        "chunks in order (rows 1, 3, 5 lie in chunks 0 and 1)",
      );
      deepEqual(Array.from(got), Array.from(want.data), "the parts make the whole selection");

      const slow = await open(`${ctx.origin}/__slow/100/tests/fixtures/v3.zarr`, {
        path: "layouts/many_chunks",
      });
      await ctx.clearLog();
      let parts = 0;
      for await (const part of slow.iterate(null, { concurrency: 3 })) {
        equal(part.data.length, 16, "a 4 x 4 chunk");
        if (++parts === 2) break;
      }
      await wait(250);
      const sent = (await ctx.requests()).length;
      ok(sent <= 6, `leaving the loop stops reading ahead: ${sent} requests`);
      equal(await ctx.active(), 0, "nothing left in flight");
      const controller = new AbortController();
      const reading = (async () => {
        for await (const part of slow.iterate(null, { signal: controller.signal })) void part;
      })();
      await wait(50);
      controller.abort();
      await rejects(reading, "AbortError", [], "an aborted iteration");
      const iterateWith = async (options) => {
        for await (const part of slow.iterate(null, options)) void part;
      };
      await rejects(
        iterateWith({ signal: AbortSignal.abort() }),
        "AbortError",
        [/iterating .* was aborted before it started/],
        "a signal aborted already",
      );
      await rejects(
        iterateWith({ concurrency: 0 }),
        "RangeError",
        [/concurrency must be an integer/],
        "a bad concurrency",
      );
    },
  },
  {
    name: "caches: identical requests in flight are shared; a store's cacheSize keeps responses, an array's chunkCacheSize decoded chunks",
    async run(ctx) {
      const { open, FetchStore, slice } = ctx.zarr;
      const chunkPaths = (log) => log.map((r) => r.path).filter((p) => /\/c\/\d/.test(p));
      const arr = await open(`${ctx.base}/v3.zarr`, { path: "dtypes/uint16" }); // 3 x 3 chunks of 5 x 4
      await ctx.clearLog();
      const [a, b] = await Promise.all([arr.get([0, 0]), arr.get([1, 2])]); // both in chunk (0, 0)
      equal(
        chunkPaths(await ctx.requests()).length,
        1,
        "two reads of one chunk at once: one request",
      );
      equal(a.data[0], (await arr.get()).data[0], "the first read's value");
      ok(b.data.length === 1, "the second read's value");
      await ctx.clearLog();
      await arr.get([0, 0]);
      equal(chunkPaths(await ctx.requests()).length, 1, "no cache by default: asked again");

      const cached = await open(new FetchStore(`${ctx.base}/v3.zarr`, { cacheSize: 1 << 20 }), {
        path: "dtypes/uint16",
      });
      const first = await cached.get();
      await ctx.clearLog();
      const again = await cached.get([slice(0, 13), null]);
      equal((await ctx.requests()).length, 0, "a store with cacheSize answers from memory");
      deepEqual(Array.from(again.data), Array.from(first.data), "the same values");

      const sharded = await open(`${ctx.base}/codecs.zarr`, {
        path: "sharding/index_end",
        chunkCacheSize: 1 << 20,
      });
      const v = (await sharded.get([40, 45])).data[0];
      await ctx.clearLog();
      equal(
        (await sharded.get([41, 46])).data[0],
        (
          await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" }).then((x) =>
            x.get([41, 46]),
          )
        ).data[0],
        "a value from a kept inner chunk",
      );
      const log = (await ctx.requests()).filter((r) => r.path.includes("/c/"));
      equal(
        log.filter((r) => r.range && !r.range.startsWith("bytes=-")).length,
        1,
        "only the uncached array fetched the inner chunk",
      );
      ok(typeof v === "number", "a value");
      await rejects(
        open(`${ctx.base}/v3.zarr`, { chunkCacheSize: -1 }),
        "RangeError",
        [/chunkCacheSize/],
        "a bad size",
      );
      await rejects(
        (async () => open(new FetchStore(`${ctx.base}/v3.zarr`, { cacheSize: "big" })))(),
        "TypeError",
        [/cacheSize/],
        "a bad store cache size",
      );
    },
  },
  {
    name: "free() releases a node at once; hundreds of opens and reads leave the module's memory where it was",
    async run(ctx) {
      const { open, memoryUsage } = ctx.zarr;
      const arr = await open(`${ctx.base}/v3.zarr`, { path: "layouts/many_chunks" });
      const round = async () => {
        for (let i = 0; i < 150; i++) {
          const a = await open(`${ctx.base}/v3.zarr`, { path: "layouts/scalar", zarrFormat: 3 });
          equal((await a.get()).data[0], 7, "a read");
          a.free();
        }
        for (let i = 0; i < 40; i++) await arr.get([ctx.zarr.slice(i % 48, 16 + (i % 48)), null]); // 64 chunks each
      };
      await arr.get();
      // The module's memory grows to what these reads need once (stores not yet garbage-collected
      // included); a leak would go on growing with every round.
      await round();
      const before = memoryUsage().wasmBytes;
      ok(before > 0, "the module's memory is known");
      await round();
      await round();
      equal(
        memoryUsage().wasmBytes,
        before,
        "300 more opens and 80 more reads later the memory has not grown",
      );
      const freed = await open(`${ctx.base}/v3.zarr`, { path: "layouts/d1" });
      freed.free();
      await rejects(freed.get(), "SelectionError", [/layouts\/d1" was freed/], "a freed node");
      if (Symbol.dispose) {
        const scoped = await open(`${ctx.base}/v3.zarr`, { path: "layouts/d1" });
        scoped[Symbol.dispose]();
        await rejects(scoped.get(), "SelectionError", [/freed/], "Symbol.dispose frees");
      }
    },
  },
  {
    name: "timings for benchmarks: off by default and counting nothing; on, decoding, assembling and copying out are counted, never more than the reads' wall time",
    async run(ctx) {
      const { open, __timingsForBench } = ctx.zarr;
      const arr = await open(`${ctx.base}/codecs.zarr`, { path: "zstd/level3" }); // 260 x 400 uint16
      await __timingsForBench(false);
      await arr.get();
      deepEqual(
        await __timingsForBench(false),
        { decode: 0, assemble: 0, copyOut: 0 },
        "off: nothing counted",
      );
      await __timingsForBench(true);
      // Browsers coarsen the clock (to 0.1 ms in Chromium): read until decoding has shown up.
      const spent = { decode: 0, assemble: 0, copyOut: 0 };
      let wall = 0;
      for (let i = 0; i < 200 && spent.decode === 0; i++) {
        const t0 = performance.now();
        await arr.get();
        wall += performance.now() - t0;
        const more = await __timingsForBench(true);
        for (const k of Object.keys(spent)) spent[k] += more[k];
      }
      await __timingsForBench(false);
      ok(spent.decode > 0, "decoding is counted");
      ok(spent.assemble >= 0 && spent.copyOut >= 0, "assembling and copying out are counted");
      ok(
        spent.decode + spent.assemble + spent.copyOut <= wall + 1,
        `phases ${JSON.stringify(spent)} within the wall time ${wall} ms`,
      );
      await arr.get();
      deepEqual(
        await __timingsForBench(false),
        { decode: 0, assemble: 0, copyOut: 0 },
        "off again: nothing counted",
      );
    },
  },
];
