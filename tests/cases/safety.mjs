// Reads that nothing breaks: aborts end only their own read, whatever the store; argument types are
// checked before they reach the module; a trap in the module rejects the calls in flight and a
// fresh instance takes over. Shared by Node and headless Chromium like read.mjs.
import { bytesOf, deepEqual, equal, ok, rejects, sameBytes } from "../support/check.mjs";
import { control as controlRun, watch } from "../support/watch.mjs";

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/** The fixture files below `rel` in a MemoryStore. */
async function memoryCopy(ctx, rel) {
  const store = new ctx.zarr.MemoryStore();
  for (const key of await ctx.list(rel)) store.set(key, await ctx.bytes(`${rel}/${key}`));
  return store;
}

/**
 * A store in front of `inner` whose answers wait until the test releases them (`release()`), and
 * which ignores the signal it is given, as many user stores do. `calls` logs what was asked.
 */
function heldStore(inner) {
  let open;
  let gate = new Promise((r) => (open = r));
  const calls = [];
  return {
    calls,
    url: "held://store",
    release: () => open(),
    hold: () => (gate = new Promise((r) => (open = r))),
    async get(key) {
      calls.push(key);
      if (!key.endsWith("zarr.json")) await gate;
      return inner.get(key);
    },
    async getRange(key, range) {
      calls.push(key);
      await gate;
      return inner.getRange(key, range);
    },
  };
}

async function expectedOf(ctx, manifest, store, path) {
  const m = await (await fetch(`${ctx.base}/${manifest}`)).json();
  const entry = m.arrays.find((e) => e.store === store && e.path === path);
  return { bytes: await ctx.bytes(entry.data), shape: entry.shape };
}

export const safetyCases = [
  {
    name: "aborts: reads sharing one shard's index and ranges fail only where aborted, each at once (three aborted one after another, the fourth exact)",
    async run(ctx) {
      const { open, slice } = ctx.zarr;
      const memory = await memoryCopy(ctx, "codecs.zarr/sharding/index_end");
      const { bytes } = await expectedOf(
        ctx,
        "v3.expected.json",
        "codecs.zarr",
        "sharding/index_end",
      );
      const whole = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
      for (let trial = 0; trial < 5; trial++) {
        const store = heldStore(memory);
        const arr = await open(store);
        // Four tiles of the first shard (32 x 32 of 8 x 8 inner chunks).
        const tiles = [0, 8, 16, 24].map((x) => [slice(0, 8), slice(x, x + 8)]);
        const controllers = tiles.map(() => new AbortController());
        const reads = tiles.map((sel, i) => arr.get(sel, { signal: controllers[i].signal }));
        reads.forEach((r) => r.catch(() => {}));
        await wait(5);
        for (let i = 0; i < 3; i++) {
          const t0 = performance.now();
          controllers[i].abort();
          await rejects(reads[i], "AbortError", [/held:\/\/store/], `trial ${trial}: read ${i}`);
          ok(
            performance.now() - t0 < 100,
            `read ${i} rejected at once, not when the store answered`,
          );
          await wait(2);
        }
        store.release();
        const last = await reads[3];
        const want = Array.from(
          { length: 64 },
          (_, k) => whole[Math.floor(k / 8) * 60 + 24 + (k % 8)],
        );
        deepEqual(Array.from(last.data), want, `trial ${trial}: the read never aborted is exact`);
      }
    },
  },
  {
    name: "aborts: an already-aborted signal rejects get, getChunk, iterate and open before anything is asked; a store that ignores the signal does not delay the rejection",
    async run(ctx) {
      const { open, openVectors, MemoryStore } = ctx.zarr;
      const memory = await memoryCopy(ctx, "v3.zarr/dtypes/uint16");
      const store = heldStore(memory);
      const arr = await open(store);
      const aborted = AbortSignal.abort("gone");
      store.calls.length = 0;
      await rejects(
        arr.get(null, { signal: aborted }),
        "AbortError",
        [/before it started/, /gone/],
        "get",
      );
      await rejects(
        arr.getChunk([0, 0], { signal: aborted }),
        "AbortError",
        [/before it started/],
        "getChunk",
      );
      await rejects(open(store, { signal: aborted }), "AbortError", [/before it started/], "open");
      await rejects(
        openVectors(new MemoryStore(), { signal: aborted }),
        "AbortError",
        [/before it started/],
        "openVectors",
      );
      await rejects(
        arr.iterate(null, { signal: aborted }).next(),
        "AbortError",
        [/aborted/],
        "iterate",
      );
      equal(store.calls.length, 0, "nothing asked of the store");

      // The store takes "200 ms" (until released) and ignores the signal; the abort comes at 50 ms.
      for (const read of [
        (signal) => arr.get(null, { signal }),
        (signal) => arr.getChunk([1, 1], { signal }),
      ]) {
        const controller = new AbortController();
        const t0 = performance.now();
        const pending = read(controller.signal);
        setTimeout(() => controller.abort(), 50);
        setTimeout(() => store.release(), 200);
        await rejects(pending, "AbortError", [/held:\/\/store/], "aborted while the store works");
        const took = performance.now() - t0;
        ok(
          took < 150,
          `rejected at the abort (${took.toFixed(0)} ms), not when the store answered`,
        );
        await wait(200);
        store.hold();
      }
      store.release();
      const { bytes } = await expectedOf(ctx, "v3.expected.json", "v3.zarr", "dtypes/uint16");
      sameBytes(bytesOf((await arr.get()).data), bytes, "the next read works");
    },
  },
  {
    name: "arguments of the wrong type are a TypeError before anything reaches the module",
    async run(ctx) {
      const { open, openVectors } = ctx.zarr;
      const memory = await memoryCopy(ctx, "v3.zarr/dtypes/uint16");
      await rejects(
        open(memory, { path: 5 }),
        "TypeError",
        [/path must be a string, not 5/],
        "open path",
      );
      await rejects(
        openVectors(memory, { path: 5 }),
        "TypeError",
        [/path must be a string, not 5/],
        "openVectors path",
      );
      await rejects(
        open(memory, "dtypes"),
        "TypeError",
        [/options must be an object/],
        "options as a string",
      );
      await rejects(
        open(memory, { signal: "stop" }),
        "TypeError",
        [/signal must be an AbortSignal/],
        "signal",
      );
      await rejects(
        open(memory, { limits: 3 }),
        "TypeError",
        [/limits must be an object/],
        "limits",
      );
      await rejects(open(42), "TypeError", [/a location must be/], "a number as location");
      const arr = await open(memory);
      await rejects(
        arr.get(null, { signal: {} }),
        "TypeError",
        [/signal must be an AbortSignal/],
        "get signal",
      );
      await rejects(
        arr.get(null, { onProgress: "x" }),
        "TypeError",
        [/onProgress must be a function/],
        "onProgress",
      );
      await rejects(
        arr.getChunk([0, 0], 7),
        "TypeError",
        [/options must be an object/],
        "getChunk options",
      );
      equal((await arr.get([0, 0])).data.length, 1, "the module goes on reading");
    },
  },
  {
    name: "a trap in the module rejects the calls in flight with a ResetError, old nodes open themselves again, and the fresh instance reads exactly",
    async run(ctx) {
      const { open, memoryUsage, ResetError, ZarrError, __trapForTests } = ctx.zarr;
      const memory = await memoryCopy(ctx, "v3.zarr/dtypes/uint16");
      const { bytes } = await expectedOf(ctx, "v3.expected.json", "v3.zarr", "dtypes/uint16");
      const store = heldStore(memory);
      const before = await open(memory);
      const held = await open(store);
      const inFlight = held.get(); // waits on the store while the module traps
      inFlight.catch(() => {});
      await wait(5);
      const trap = await rejects(
        __trapForTests(10),
        "ResetError",
        [/WebAssembly module failed/, /RuntimeError/, /reset/],
        "the trapping call",
      );
      ok(trap instanceof ResetError && trap instanceof ZarrError, "a ResetError is a ZarrError");
      await rejects(inFlight, "ResetError", [/was reset/], "the read in flight");
      store.release();
      // chunkExtent cannot wait for the node to open itself again: until then it says so.
      const sync = (() => {
        try {
          before.chunkExtent([0, 0]);
        } catch (err) {
          return err;
        }
      })();
      ok(sync?.name === "ResetError" && /opened again/.test(sync.message), `chunkExtent: ${sync}`);
      sameBytes(
        bytesOf((await before.get()).data),
        bytes,
        "a node opened before opens itself again in the fresh instance and reads exactly",
      );
      ok(before.chunkExtent([0, 0]).shape.length === 2, "and chunkExtent answers again");
      const again = await open(memory);
      sameBytes(bytesOf((await again.get()).data), bytes, "a node opened afterwards reads exactly");
      ok(memoryUsage().wasmBytes > 0, "memoryUsage reports the new instance");
      // Twice in a row works as well.
      await rejects(__trapForTests(0), "ResetError", [/reset/], "a second trap");
      sameBytes(
        bytesOf((await (await open(memory)).get()).data),
        bytes,
        "and the next instance reads too",
      );
    },
  },
  {
    name: "a trap in a worker fails the read it was doing with a WorkerError, once (not tried again); the main thread's instance and the pool go on",
    async run(ctx) {
      const { open, memoryUsage, WorkerPool, __trapForTests } = ctx.zarr;
      const memory = await memoryCopy(ctx, "v3.zarr/dtypes/uint16");
      const { bytes } = await expectedOf(ctx, "v3.expected.json", "v3.zarr", "dtypes/uint16");
      const store = heldStore(memory);
      const bystander = await open(memory); // main thread
      const pool = new WorkerPool(1);
      const pooled = await open(store, { workers: pool });
      await pool.ready(); // the read is the worker's (before, it would be the main thread's)
      const reading = pooled.getChunk([0, 0]); // waits on the store in the worker
      reading.catch(() => {});
      while (!store.calls.some((k) => !k.endsWith("zarr.json"))) await wait(5);
      const asked = store.calls.length;
      pool.__trapForTests(0);
      await rejects(
        reading,
        "WorkerError",
        [/in the worker/, /WebAssembly module failed/],
        "the read in the trapping worker",
      );
      store.release();
      await wait(50);
      equal(store.calls.length, asked, "the store was not asked again: the read was not retried");
      ok(memoryUsage().wasmBytes > 0, "the main thread's instance is still there");
      sameBytes(bytesOf((await bystander.get()).data), bytes, "a main-thread node reads on");
      sameBytes(bytesOf((await pooled.get()).data), bytes, "the pooled node reads again");
      pool.terminate();
    },
  },
  {
    name: "hostile servers: an endless body, a lying length and a stalled server are refused or time out, a slow one is read, redirects follow the option; nothing is left at the server",
    async run(ctx) {
      const { open, FetchStore } = ctx.zarr;
      // Cancelled requests close at the server soon after, later on a loaded machine: wait up to 5 s.
      const idle = async (after) => {
        for (let i = 0; i < 250 && (await ctx.active()) > 0; i++) await wait(20);
        equal(await ctx.active(), 0, `no request left in progress at the server after ${after}`);
      };
      // An endless body for a whole value, refused at the store's object size cap.
      await rejects(
        open(
          new FetchStore(`${ctx.origin}/__endless/tests/fixtures/v3.zarr`, {
            maxObjectBytes: 1 << 20,
          }),
        ),
        "StoreError",
        [/__endless\/tests\/fixtures\/v3\.zarr\/zarr\.json/, /more than the 1048576 bytes/],
        "an endless zarr.json",
      );
      await idle("the endless zarr.json");
      // An endless answer to a range request (a shard index), refused past the range, default options.
      const endlessShards = new FetchStore(`${ctx.origin}/__endless/tests/fixtures/codecs.zarr`, {
        fetch: (req) =>
          fetch(
            req.url.endsWith("zarr.json")
              ? new Request(req.url.replace("/__endless", ""), req)
              : req,
          ),
      });
      const sharded = await open(endlessShards, { path: "sharding/index_end" });
      await rejects(
        sharded.get([0, 0]),
        "StoreError",
        [/sharding\/index_end\/c\/0\/0/, /more than the 260 bytes/],
        "an endless range",
      );
      await idle("the endless range");
      // A Content-Length of 1 TiB: refused from the header, before the body.
      const t0 = performance.now();
      await rejects(
        open(`${ctx.origin}/__huge/tests/fixtures/v3.zarr`),
        "StoreError",
        [/Content-Length/, /1099511627776/],
        "a lying length",
      );
      ok(performance.now() - t0 < 2000, "refused at once");
      await idle("the lying length");
      // A server that never answers: the timeout fails each try, and the tries are counted.
      const t1 = performance.now();
      await rejects(
        open(
          new FetchStore(`${ctx.origin}/__stall/tests/fixtures/v3.zarr`, {
            timeout: 200,
            retries: 1,
          }),
        ),
        "StoreError",
        [/no progress for 200 ms/, /after 2 tries/],
        "a stalled server",
      );
      const took = performance.now() - t1;
      ok(took >= 400 && took < 3000, `two tries of 200 ms and a pause (${took.toFixed(0)} ms)`);
      await idle("the stalled server");
      // A slow server that keeps sending is read, however long the whole takes.
      await ctx.clearLog();
      const slowStore = new FetchStore(
        `${ctx.origin}/__trickle/80/tests/fixtures/consolidated.zarr`,
        { timeout: 200 },
      );
      const t2 = performance.now();
      const group = await open(slowStore);
      ok(performance.now() - t2 > 200, "the whole took longer than the timeout");
      ok(group.children.length > 0, "the slow document was read whole");
      // Redirects: followed by default, refused with redirect: "error".
      equal(
        (await open(`${ctx.origin}/__redirect/tests/fixtures/v3.zarr`)).kind,
        "group",
        "a redirect is followed",
      );
      await rejects(
        open(
          new FetchStore(`${ctx.origin}/__redirect/tests/fixtures/v3.zarr`, { redirect: "error" }),
        ),
        "StoreError",
        [/__redirect\/tests\/fixtures\/v3\.zarr\/zarr\.json/],
        "redirect: error",
      );
      await rejects(
        (async () => open(new FetchStore(ctx.base, { redirect: "sometimes" })))(),
        "RangeError",
        [/redirect must be/],
        "a bad redirect option",
      );
      await rejects(
        (async () => open(new FetchStore(ctx.base, { timeout: -1 })))(),
        "RangeError",
        [/timeout must be an integer/],
        "a bad timeout",
      );
    },
  },
  {
    name: "huge metadata opens in short turns: a zarr.json of a million lists and one of 100 MB keep the event loop within a control's waits; attributes are built when first read; a million and one lists are refused",
    async run(ctx) {
      const { open, MemoryStore } = ctx.zarr;
      const text = new TextEncoder();
      // Written as text: a million JavaScript lists would leave the collector a pause of its
      // own to take during the open.
      const group = (attributes) =>
        text.encode(`{"zarr_format": 3, "node_type": "group", "attributes": ${attributes}}`);
      const lists = (n) => group(`{"a": [${"[0],".repeat(n - 1)}[0]]}`);
      // A million lists and objects (the bound), counting the document's own object, its
      // attributes' and the attribute's list; and a single string of 100 MB.
      const million = lists(999_997);
      const long = group(`{"s": "${"x".repeat(100_000_000)}"}`);
      const control = await controlRun(400);
      for (const [what, doc, check] of [
        ["a million lists", million, (attrs) => attrs.a.length === 999_997 && attrs.a[5][0] === 0],
        ["100 MB", long, (attrs) => attrs.s.length === 100_000_000],
      ]) {
        const store = new MemoryStore([["zarr.json", doc]]);
        const opened = await watch(() => open(store, { kind: "group" }));
        console.log(
          `huge metadata: ${what} (${doc.length} bytes) opened in ${opened.took.toFixed(0)} ms, longest wait ${opened.worst.toFixed(0)} ms, ${opened.long} over 100 ms (control: ${control.worst.toFixed(0)} ms, ${control.long})`,
        );
        ok(
          opened.worst < Math.max(150, 2 * control.worst),
          `${what}: the event loop waited ${opened.worst.toFixed(0)} ms at most while it opened (the control ${control.worst.toFixed(0)})`,
        );
        ok(check(opened.value.attrs), `${what}: the attributes read back`);
        opened.value.free();
      }
      const over = lists(999_998);
      await rejects(
        open(new MemoryStore([["zarr.json", over]]), { kind: "group" }),
        "MetadataError",
        [/more than 1000000 lists and objects/],
        "a million and one lists",
      );
    },
  },
  {
    name: "long reads give the event loop its turns and can be stopped by a timer; reads beyond the chunk and byte limits are refused before anything is fetched",
    async run(ctx) {
      const { open, MemoryStore } = ctx.zarr;
      const meta = (shape, chunks, extra = {}) =>
        new TextEncoder().encode(
          JSON.stringify({
            zarr_format: 3,
            node_type: "array",
            shape,
            data_type: "uint8",
            chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
            chunk_key_encoding: { name: "default" },
            fill_value: 7,
            codecs: [{ name: "bytes" }],
            ...extra,
          }),
        );
      // A million one-element chunks, none stored: a million store calls that answer at once.
      const store = new MemoryStore([["zarr.json", meta([1000, 1000], [1, 1])]]);
      let asked = 0;
      const counting = { get: (key) => (asked++, store.get(key)) };
      const arr = await open(counting);
      // The control, in the same run (tests/support/watch.mjs), for about as long.
      const control = await controlRun(400);
      const {
        ticks,
        worst,
        long,
        took,
        value: part,
      } = await watch(
        () => arr.get([ctx.zarr.slice(0, 200), null]), // 200,000 chunks
      );
      console.log(
        `200,000 chunks from memory: ${took.toFixed(0)} ms, ${ticks} timer turns, longest wait ${worst.toFixed(0)} ms, ${long} over 100 ms; control: ${control.took.toFixed(0)} ms, ${control.ticks} turns, longest ${control.worst.toFixed(0)} ms, ${control.long} over 100 ms`,
      );
      ok(
        part.data.every((v) => v === 7),
        "the fill value everywhere",
      );
      // Turns per unit of work: at least a quarter of the control's rate (it yields every 8 ms).
      const rate = ticks / took;
      const controlRate = control.ticks / control.took;
      ok(
        rate >= controlRate / 4,
        `a 5 ms timer fired ${ticks} times in ${took.toFixed(0)} ms (${(rate * 1000).toFixed(0)}/s; the control's ${(controlRate * 1000).toFixed(0)}/s)`,
      );
      // A read that never yielded would leave the timer waiting for all of it (a second or more),
      // and one that yielded too rarely would leave many long waits. One pause of a garbage
      // collector (seen in Chromium after the other cases: 140-170 ms, once) is not the read's;
      // nor are the waits a loaded machine gives the control as well.
      ok(
        worst < Math.max(500, 2 * control.worst) &&
          long <= 1 + control.long * Math.ceil(took / control.took),
        `the event loop waited over 100 ms ${long} times, at most ${worst.toFixed(0)} ms (the control: ${control.long}, at most ${control.worst.toFixed(0)} ms)`,
      );
      // A timer's abort stops the whole million-chunk read soon after it fires.
      const t1 = performance.now();
      await rejects(
        arr.get(null, { signal: AbortSignal.timeout(100) }),
        "AbortError",
        [/aborted/],
        "a timeout signal",
      );
      const stopped = performance.now() - t1;
      ok(
        stopped < 600,
        `stopped ${stopped.toFixed(0)} ms after it started (the signal fired at 100)`,
      );

      // A billion one-element chunks: refused at once, naming the limit and the option.
      const huge = await open(new MemoryStore([["zarr.json", meta([1e9], [1])]]));
      const memory = ctx.zarr.memoryUsage().wasmBytes;
      const t2 = performance.now();
      await rejects(
        huge.get(),
        "SelectionError",
        [/more than 1048576 chunks/, /maxChunksPerRead/],
        "1e9 chunks",
      );
      ok(performance.now() - t2 < 500, "refused before any work");
      equal(ctx.zarr.memoryUsage().wasmBytes, memory, "no memory taken");
      asked = 0;
      await rejects(
        arr.get(null, { maxChunks: 1000 }),
        "SelectionError",
        [/more than 1000 chunks/, /maxChunks/],
        "the read option",
      );
      equal(asked, 0, "nothing asked of the store");
      const wide = await open(new MemoryStore([["zarr.json", meta([2e9], [1e6])]]));
      await rejects(
        wide.get(),
        "SelectionError",
        [/2000000000 bytes/, /maxBytesPerRead/],
        "a 2 GB result",
      );
      await rejects(
        wide.get([ctx.zarr.slice(0, 2e6)], { maxBytes: 1e6 }),
        "SelectionError",
        [/2000000 bytes/, /maxBytes/],
        "the read option",
      );
      equal((await huge.get([ctx.zarr.slice(0, 10)])).data.length, 10, "a small read of it works");
      // Eight-dimensional shards of 16^8 one-element inner chunks: 16 million inner chunks in a region.
      const sharded = await open(
        new MemoryStore([
          [
            "zarr.json",
            meta(Array(8).fill(16), Array(8).fill(16), {
              codecs: [
                {
                  name: "sharding_indexed",
                  configuration: {
                    chunk_shape: Array(8).fill(1),
                    codecs: [{ name: "bytes" }],
                    index_codecs: [
                      { name: "bytes", configuration: { endian: "little" } },
                      { name: "crc32c" },
                    ],
                  },
                },
              ],
            }),
          ],
        ]),
      );
      const region = [...Array(6).fill(null), ctx.zarr.slice(0, 1), ctx.zarr.slice(0, 1)]; // 16 MB
      await rejects(
        sharded.get(region),
        "SelectionError",
        [/more than 1048576 inner chunks/, /maxChunksPerRead/],
        "16M inner chunks",
      );
      equal(ctx.zarr.memoryUsage().wasmBytes, memory, "still no memory taken");
    },
  },
  {
    name: "a 600 MB string in a 1 MB gzipped chunk is a CodecError naming the limit, not a dead module; raised limits stop it at the JavaScript string limit",
    async run(ctx) {
      const { open, MemoryStore, memoryUsage } = ctx.zarr;
      const gzip = async (bytes) =>
        new Uint8Array(
          await new Response(
            new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip")),
          ).arrayBuffer(),
        );
      // gzip allows members in a row: a header member, then the same 1 MiB of "a" again and again.
      const block = await gzip(new Uint8Array(1 << 20).fill(97));
      const stringChunk = async (mib) => {
        const header = new Uint8Array(8);
        new DataView(header.buffer).setUint32(0, 1, true);
        new DataView(header.buffer).setUint32(4, mib << 20, true);
        const parts = [await gzip(header), ...Array(mib).fill(block)];
        const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
        return out;
      };
      const meta = new TextEncoder().encode(
        JSON.stringify({
          zarr_format: 3,
          node_type: "array",
          shape: [1],
          data_type: "string",
          chunk_grid: { name: "regular", configuration: { chunk_shape: [1] } },
          chunk_key_encoding: { name: "default" },
          fill_value: "",
          codecs: [{ name: "vlen-utf8" }, { name: "gzip", configuration: { level: 1 } }],
        }),
      );
      const bomb = await stringChunk(600);
      ok(bomb.length < 2 << 20, `the chunk is ${bomb.length} bytes`);
      const store = new MemoryStore([
        ["zarr.json", meta],
        ["c/0", bomb],
      ]);
      const heap = memoryUsage().heapBytes;
      await rejects(
        (await open(store)).get(),
        "CodecError",
        [/gzip/, /c\/0/, /268435456/, /maxDecodedChunkBytes/],
        "default limits",
      );
      await rejects(
        (await open(store, { limits: { maxDecodedChunkBytes: 700 << 20 } })).get(),
        "CodecError",
        [/item 0 is 629145600 bytes/, /maxItemBytes/],
        "past the JavaScript string limit",
      );
      ok(memoryUsage().heapBytes - heap < 1 << 20, "the decoded bytes were given back");
      const small = new MemoryStore([
        ["zarr.json", meta],
        ["c/0", await stringChunk(3)],
      ]);
      await rejects(
        (await open(small, { limits: { maxItemBytes: 1 << 20 } })).get(),
        "CodecError",
        [/item 0 is 3145728 bytes, more than the 1048576/],
        "a low item limit",
      );
      const read = await (await open(small)).get();
      ok(
        read.data[0].length === 3 << 20 && read.data[0].startsWith("aaaa"),
        "a 3 MB string reads within the limits",
      );
      await rejects(
        open(small, { limits: { maxChunksPerReed: 5 } }),
        "TypeError",
        [/limits has no option "maxChunksPerReed" \(did you mean "maxChunksPerRead"\?\)/],
        "a misspelt limit",
      );
    },
  },
  {
    name: "a fuzzing server answering requests with random quirks: every read is exact or a ZarrError, and nothing is left in flight",
    async run(ctx) {
      const { open, FetchStore, ZarrError } = ctx.zarr;
      const arrays = [
        ["v3.zarr", "dtypes/uint16"],
        ["codecs.zarr", "sharding/index_end"],
        ["codecs.zarr", "sharding/index_start"],
        ["codecs.zarr", "sharding/nested"],
        ["codecs.zarr", "vlen/utf8"],
        ["v2.zarr", "compressors/zlib"],
      ];
      const flat = (data) =>
        JSON.stringify(Array.from(data, (v) => (typeof v === "bigint" ? String(v) : v)));
      const clean = new Map();
      for (const [store, path] of arrays)
        clean.set(path, flat((await (await open(`${ctx.base}/${store}`, { path })).get()).data));
      const counts = { exact: 0, errors: 0 };
      const iterations = ctx.stressReads ? ctx.stressReads / 2 : 60;
      for (let i = 0; i < iterations; i++) {
        const [store, path] = arrays[i % arrays.length];
        // A fresh store each time: what it learns of one server must not carry over.
        const fetchStore = new FetchStore(
          `${ctx.origin}/__fuzz/${1000 + i}/tests/fixtures/${store}`,
          { timeout: 300, retries: 1, maxObjectBytes: 1 << 20 },
        );
        try {
          const arr = await open(fetchStore, { path });
          equal(
            flat((await arr.get()).data),
            clean.get(path),
            `read ${i} of ${store}/${path}: the values`,
          );
          counts.exact++;
        } catch (err) {
          ok(
            err instanceof ZarrError,
            `read ${i} of ${store}/${path} failed with a ${err?.name}: ${err?.message}`,
          );
          counts.errors++;
        }
      }
      console.log(
        `fuzzing server: ${iterations} reads, ${counts.exact} exact, ${counts.errors} errors`,
      );
      ok(counts.exact > 0 && counts.errors > 0, "both outcomes happen");
      for (let i = 0; i < 250 && (await ctx.active()) > 0; i++) await wait(20);
      const left = await ctx.active();
      equal(
        left,
        0,
        `nothing left in flight at the server${left ? `: ${await ctx.inFlight()}` : ""}`,
      );
    },
  },
];
