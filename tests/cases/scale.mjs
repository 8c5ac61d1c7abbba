// Reads at the sizes real data has: chunks of 1, 2, 4 and 16 MiB and shards of 64 MiB, about
// 230 MB in all, written by zarr-python with numcodecs' C codecs at test time
// (scripts/make_scale_data.py, into target/scale-data/), read over the real HTTP server byte for
// byte, in Node (tests/node/scale.test.mjs) and headless Chromium (tests/browser/scale.test.mjs),
// each in a process or page of its own so that the module's memory is this file's alone. Also: the
// same reads with bodies that arrive in 1-byte, 1 KiB and 64 KiB writes, and a stress run of
// mixed real-size reads with random aborts on the main thread and through workers.
import { equal, ok } from "../support/check.mjs";
import { mulberry32 } from "../support/random.mjs";
import { control, watch } from "../support/watch.mjs";

const MiB = 1 << 20;
/** What a read may cost in wasm memory beyond 3x its result: the module, its tables, a chunk. */
const MARGIN = 96 * MiB;

/** The element at row i, column j of the last two axes (scripts/make_scale_data.py's formulas). */
export function scaleValue(dtype, i, j, pattern = "hashed") {
  const g = (Math.imul(i, 2654435761 | 0) ^ Math.imul(j, 2246822519 | 0)) >>> 0;
  const h = Math.imul(g ^ (g >>> 13), 3266489917 | 0) >>> 0;
  if (pattern === "smooth") return ((i >> 4) + (j >> 4) + (h >>> 30)) & 0xff;
  if (dtype === "uint8") return h >>> 24;
  if (dtype === "uint16") return h >>> 16;
  return Math.fround((h >>> 8) / 16);
}

/** Checks every element of a read of rows [y0, y0 + h) and columns [x0, x0 + w). */
function checkBlock(data, dtype, y0, x0, h, w, what, pattern) {
  equal(data.length, h * w, `${what}: elements`);
  for (let i = 0; i < h; i++) {
    const row = i * w;
    for (let j = 0; j < w; j++) {
      const want = scaleValue(dtype, y0 + i, x0 + j, pattern);
      if (data[row + j] !== want)
        throw new Error(`${what}: element (${y0 + i}, ${x0 + j}) is ${data[row + j]}, not ${want}`);
    }
  }
}

const ARRAYS = {
  small: { path: "small.zarr", dtype: "uint16", rows: 64, cols: 64 },
  chunks_1mib: { path: "chunks_1mib.zarr", dtype: "uint8", rows: 8, cols: MiB },
  ome: { path: "ome.zarr/0", dtype: "uint16", rows: 4096, cols: 4096, lead: 3 },
  chunks_4mib: { path: "chunks_4mib.zarr", dtype: "float32", rows: 4096, cols: 2048 },
  chunks_16mib: { path: "chunks_16mib.zarr", dtype: "uint8", rows: 8192, cols: 4096 },
  sharded: { path: "sharded_64mib.zarr", dtype: "uint16", rows: 8192, cols: 8192, shards: 2 },
  gzip_16mib: {
    path: "gzip_16mib.zarr",
    dtype: "uint8",
    rows: 8192,
    cols: 4096,
    pattern: "smooth",
  },
  zstd_16mib: {
    path: "zstd_16mib.zarr",
    dtype: "uint8",
    rows: 8192,
    cols: 4096,
    pattern: "smooth",
  },
};
const itemSize = { uint8: 1, uint16: 2, float32: 4 };

/** A selection of rows and columns of `a`, with its leading axes at 0. */
function box(zarr, a, y, x, h, w) {
  return [...Array(a.lead ?? 0).fill(0), zarr.slice(y, y + h), zarr.slice(x, x + w)];
}

function wholeReadCase(key) {
  const a = ARRAYS[key];
  const bytes = a.rows * a.cols * itemSize[a.dtype];
  return {
    name: `scale: ${a.path} (${a.dtype}, ${bytes / MiB} MiB) read whole over HTTP, byte for byte, wasm memory within 3x the result`,
    async run(ctx) {
      const { open, memoryUsage } = ctx.zarr;
      const arr = await open(`${ctx.scaleBase}/${a.path}`);
      await ctx.clearLog();
      const { data } = await arr.get(null);
      checkBlock(data, a.dtype, 0, 0, a.rows, a.cols, a.path);
      if (a.shards) {
        // Shards this large are read by their index and ranges, not whole: a range's answer is
        // reserved at its size at once, where a whole body past 64 MiB grows, copying itself.
        const shards = (await ctx.requests()).filter((r) => /\/c\/\d+\/\d+$/.test(r.path));
        ok(
          shards.length >= 2 * a.shards && shards.every((r) => r.range !== null),
          `each shard is read by ranges: ${JSON.stringify(shards)}`,
        );
      }
      const wasm = memoryUsage().wasmBytes;
      console.log(
        `scale memory: ${a.path}: ${(wasm / MiB).toFixed(0)} MiB of wasm memory after a ${bytes / MiB} MiB read`,
      );
      // Memory is a high-water mark: every read so far in this process or page is at most as
      // large as this one (the cases run smallest first).
      ok(
        wasm <= 3 * bytes + MARGIN,
        `wasm memory is ${(wasm / MiB).toFixed(0)} MiB after reading ${bytes / MiB} MiB (at most 3x + ${MARGIN / MiB} MiB)`,
      );
      arr.free();
    },
  };
}

const tileCase = {
  name: "scale: a 1024 x 1024 tile of a 64 MiB shard reads its index and one inner chunk by range, not the shard",
  async run(ctx) {
    const { open, slice } = ctx.zarr;
    const a = ARRAYS.sharded;
    const arr = await open(`${ctx.scaleBase}/${a.path}`);
    await ctx.clearLog();
    const { data } = await arr.get([slice(5120, 6144), slice(3072, 4096)]);
    checkBlock(data, a.dtype, 5120, 3072, 1024, 1024, "tile");
    const shard = (await ctx.requests()).filter((r) => r.path.endsWith("/c/1/0"));
    ok(
      shard.every((r) => r.range !== null),
      `every request for the shard is a range: ${JSON.stringify(shard)}`,
    );
    const received = shard.reduce((n, r) => n + r.bytes, 0);
    ok(
      received < 3 * MiB,
      `read ${received} bytes of the 64 MiB shard for one 2 MiB inner chunk and the index`,
    );
    arr.free();
  },
};

/**
 * The same tile from another origin (the same server by another name, in Chromium; Node has no
 * CORS and no other origin), its bodies in 64 KiB writes: the shard's index by HEAD and an
 * explicit range, never a suffix range or a preflight; still no more of the shard than the tile.
 */
const otherOriginTileCase = {
  name: "scale: a 1024 x 1024 tile of a 64 MiB shard from another origin, bodies in 64 KiB writes: the index by HEAD and an explicit range (no preflight), one inner chunk, exact",
  async run(ctx) {
    const { open, slice } = ctx.zarr;
    const a = ARRAYS.sharded;
    const inBrowser = typeof document !== "undefined";
    const other = inBrowser ? ctx.origin.replace("127.0.0.1", "localhost") : ctx.origin;
    ok(other !== ctx.origin || !inBrowser, `another origin: ${other}`);
    const base = ctx.scaleBase.replace(ctx.origin, `${other}/__parts/65536`);
    await ctx.clearLog();
    const arr = await open(`${base}/${a.path}`);
    const { data } = await arr.get([slice(5120, 6144), slice(3072, 4096)]);
    checkBlock(data, a.dtype, 5120, 3072, 1024, 1024, "tile from another origin");
    const shard = (await ctx.requests()).filter((r) => r.path.endsWith("/c/1/0"));
    const asked = shard.map((r) => `${r.method} ${r.range ?? ""}`.trim());
    if (inBrowser) {
      ok(asked[0] === "HEAD", `HEAD first: ${asked}`);
      ok(
        shard.slice(1).every((r) => r.method === "GET" && /^bytes=\d+-\d+$/.test(r.range ?? "")),
        `then explicit ranges only: ${asked}`,
      );
      equal(await (await fetch(`${ctx.origin}/__preflights`)).text(), "0", "no preflight");
    } else
      ok(
        asked.some((r) => r.startsWith("GET bytes=-")),
        `Node: a suffix range: ${asked}`,
      );
    const received = shard.reduce((n, r) => n + r.bytes, 0);
    ok(received < 3 * MiB, `read ${received} bytes of the 64 MiB shard for one 2 MiB inner chunk`);
    arr.free();
  },
};

function partsCase(partBytes, key, rows) {
  const a = ARRAYS[key];
  return {
    name: `scale: bodies in ${partBytes}-byte writes: ${rows} rows of ${a.path} exact`,
    async run(ctx) {
      const { open } = ctx.zarr;
      const base = ctx.scaleBase.replace(ctx.origin, `${ctx.origin}/__parts/${partBytes}`);
      const arr = await open(`${base}/${a.path}`);
      const { data } = await arr.get(box(ctx.zarr, a, 0, 0, rows, a.cols));
      checkBlock(data, a.dtype, 0, 0, rows, a.cols, a.path);
      arr.free();
    },
  };
}

/** Settles within `ms`, or rejects saying that `what` hung. */
function within(promise, ms, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hung: ${what} did not settle in ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function stressCase(workers) {
  return {
    name: `scale: stress: mixed real-size reads with random aborts (${workers ? "2 workers" : "main thread"})`,
    async run(ctx) {
      const { open, memoryUsage, WorkerPool } = ctx.zarr;
      const pool = workers ? new WorkerPool(2) : undefined;
      const next = mulberry32(workers ? 7 : 3);
      const opened = {};
      for (const key of ["ome", "chunks_4mib", "chunks_16mib", "sharded"])
        opened[key] = await open(`${ctx.scaleBase}/${ARRAYS[key].path}`, { workers: pool });
      await pool?.ready(); // the reads are the workers' (before, the first would be this thread's)
      const keys = Object.keys(opened);
      const reads = ctx.scaleStressReads ?? 40;
      const counts = { reads, aborted: 0, exact: 0, wrong: 0, failed: 0, hangs: 0 };
      const before = memoryUsage().wasmBytes;
      let peak = before;
      const one = async () => {
        const key = keys[Math.floor(next() * keys.length)];
        const a = ARRAYS[key];
        // From one tile to a block of several chunks (up to 2048 x 2048).
        const h = Math.min(a.rows, 256 + Math.floor(next() * 1792));
        const w = Math.min(a.cols, 256 + Math.floor(next() * 1792));
        const y = Math.floor(next() * (a.rows - h + 1));
        const x = Math.floor(next() * (a.cols - w + 1));
        const controller = new AbortController();
        const abortAt = next() < 0.4 ? next() * 150 : null;
        if (abortAt !== null) setTimeout(() => controller.abort("left the view"), abortAt);
        try {
          const { data } = await within(
            opened[key].get(box(ctx.zarr, a, y, x, h, w), { signal: controller.signal }),
            60000,
            `a read of ${key}`,
          );
          try {
            checkBlock(data, a.dtype, y, x, h, w, key);
            counts.exact++;
          } catch (err) {
            counts.wrong++;
            console.log(`wrong: ${err.message}`);
          }
        } catch (err) {
          if (/^hung/.test(err.message)) counts.hangs++;
          else if (err.name === "AbortError" && controller.signal.aborted) counts.aborted++;
          else {
            counts.failed++;
            console.log(`failed: ${err.name}: ${err.message}`);
          }
        }
        peak = Math.max(peak, memoryUsage().wasmBytes);
      };
      // Four at a time, as a viewer's tiles come.
      const lanes = Array.from({ length: 4 }, async (_, lane) => {
        for (let i = lane; i < reads; i += 4) await one();
      });
      await Promise.all(lanes);
      const after = memoryUsage().wasmBytes;
      console.log(
        `scale stress (${workers ? "2 workers" : "main thread"}): ${JSON.stringify({ ...counts, wasmBefore: before, wasmPeak: peak, wasmAfter: after })}`,
      );
      equal(counts.wrong, 0, "reads with wrong values");
      equal(counts.hangs, 0, "reads that hung");
      equal(counts.failed, 0, "reads that failed otherwise");
      equal(counts.exact + counts.aborted, reads, "every read exact or aborted");
      for (const arr of Object.values(opened)) arr.free();
      pool?.terminate();
    },
  };
}

/** One 16 MiB chunk's decode, gzip and zstd: given in slices, and stopped by an abort. */
const sliceCase = {
  name: "scale: one 16 MiB chunk (gzip, zstd) decodes in slices: the event loop never waits 100 ms more than a control's longest wait, and an abort during the decode settles within 100 ms of it",
  async run(ctx) {
    const { open, MemoryStore } = ctx.zarr;
    // The control, in the same run: the machine's own waits (a loaded machine, a collector's
    // pause) are not the reader's.
    const calm = await control(300);
    for (const key of ["gzip_16mib", "zstd_16mib"]) {
      const a = ARRAYS[key];
      // From memory, so that the read is the decode: the chunk's bytes are fetched first.
      const base = `${ctx.scaleBase}/${a.path}`;
      const bytes = async (k) => new Uint8Array(await (await fetch(`${base}/${k}`)).arrayBuffer());
      const store = new MemoryStore([
        ["zarr.json", await bytes("zarr.json")],
        ["c/0/0", await bytes("c/0/0")],
      ]);
      const arr = await open(store);
      const chunk = box(ctx.zarr, a, 0, 0, 4096, 4096);
      const read = await watch(() => arr.get(chunk));
      checkBlock(read.value.data, a.dtype, 0, 0, 4096, 4096, key, a.pattern);
      console.log(
        `scale slices: ${key}: one 16 MiB chunk in ${read.took.toFixed(0)} ms, ${read.ticks} timer turns, longest wait ${read.worst.toFixed(0)} ms (control: ${calm.worst.toFixed(0)} ms)`,
      );
      ok(
        read.worst <= 100 + calm.worst,
        `${key}: the event loop waited ${read.worst.toFixed(0)} ms at most (the control ${calm.worst.toFixed(0)})`,
      );
      // An abort a few milliseconds into the decode.
      const controller = new AbortController();
      let aborted = 0;
      setTimeout(() => {
        aborted = performance.now();
        controller.abort("left the view");
      }, 5);
      const stopped = await watch(() =>
        arr.get(chunk, { signal: controller.signal }).catch((error) => ({ error })),
      );
      const settled = performance.now();
      // The read settles as an AbortError, or with its values where it had finished by then;
      // either way promptly after the abort.
      const { error, data } = stopped.value;
      if (error) equal(error.name, "AbortError", `${key}: ${error.message}`);
      else checkBlock(data, a.dtype, 0, 0, 4096, 4096, key, a.pattern);
      if (aborted) {
        const after = settled - aborted;
        console.log(
          `scale slices: ${key}: settled ${after.toFixed(0)} ms after the abort (${error ? "aborted" : "finished"})`,
        );
        ok(after <= 100 + calm.worst, `${key}: settled ${after.toFixed(0)} ms after the abort`);
      }
      arr.free();
    }
  },
};

/** Memory given back after a large read, once idle; the nodes opened before read on. */
const giveBackCase = {
  name: "scale: after a 128 MiB read the module gives its memory back once idle, and nodes opened before read on exactly",
  async run(ctx) {
    const { open, memoryUsage, releaseMemory, slice } = ctx.zarr;
    const a = ARRAYS.sharded;
    const arr = await open(`${ctx.scaleBase}/${a.path}`);
    const tile = await open(`${ctx.scaleBase}/${ARRAYS.ome.path}`);
    const { data } = await arr.get(null);
    checkBlock(data, a.dtype, 0, 0, a.rows, a.cols, a.path);
    const peak = memoryUsage().wasmBytes;
    ok(peak >= 256 * MiB, `the read's peak is large (${(peak / MiB).toFixed(0)} MiB)`);
    // Nothing is given back while a call is in flight.
    const reading = tile.get(box(ctx.zarr, ARRAYS.ome, 0, 0, 256, 256));
    equal(releaseMemory(), false, "releaseMemory() with a read in flight");
    await reading;
    // On its own, after 2 s idle: wait up to 8 s (a loaded machine delays timers).
    const t0 = performance.now();
    while (memoryUsage().wasmBytes >= peak && performance.now() - t0 < 8000)
      await new Promise((r) => setTimeout(r, 100));
    const after = memoryUsage().wasmBytes;
    console.log(
      `scale give-back: ${(peak / MiB).toFixed(0)} MiB -> ${(after / MiB).toFixed(1)} MiB after ${(performance.now() - t0).toFixed(0)} ms idle`,
    );
    ok(after <= 16 * MiB, `wasm memory is ${(after / MiB).toFixed(1)} MiB once idle (at most 16)`);
    // The nodes opened before open themselves again in the fresh instance.
    const part = await arr.get([slice(5000, 5300), slice(7000, 7400)]);
    checkBlock(part.data, a.dtype, 5000, 7000, 300, 400, "a read after the give-back");
    const extent = { origin: [arr.chunks[0], 0], shape: arr.chunks };
    equal(JSON.stringify(arr.chunkExtent([1, 0])), JSON.stringify(extent), "chunkExtent after");
    const t = await tile.get(box(ctx.zarr, ARRAYS.ome, 1000, 1000, 100, 100));
    checkBlock(t.data, ARRAYS.ome.dtype, 1000, 1000, 100, 100, "another node after the give-back");
    ok(memoryUsage().wasmBytes <= 64 * MiB, "small reads keep the fresh instance small");
    arr.free();
    tile.free();
  },
};

/**
 * Ranges of a 64 MiB file from a server that ignores Range (it answers 200 with the whole file):
 * the module keeps only the ranges as the file streams in, so its memory stays the size of the
 * ranges, not of the file (a 200 MB answer to a 16 KiB range took 328 MB). References to ranges
 * of a large target file (kerchunk over NetCDF) on such a server are read so.
 */
const ignoredRangeCase = {
  name: "scale: ranges of a 64 MiB file from a server that ignores Range: the values are exact and the module keeps the ranges, not the file",
  async run(ctx) {
    const { open, memoryUsage, ReferenceStore } = ctx.zarr;
    const file = `${ctx.scaleBase}/${ARRAYS.sharded.path}/c/1/0`;
    const size = Number((await fetch(file, { method: "HEAD" })).headers.get("Content-Length"));
    ok(size >= 32 * MiB, `the target is large (${size} bytes)`);
    const CHUNK = 4096;
    // The end (where a shard index is), the start, and the middle.
    const offsets = [size - CHUNK, 0, Math.floor(size / 2)];
    const target = file.replace(ctx.origin, `${ctx.origin}/__norange`);
    const refs = {
      ".zgroup": JSON.stringify({ zarr_format: 2 }),
      "a/.zarray": JSON.stringify({
        zarr_format: 2,
        shape: [offsets.length * CHUNK],
        chunks: [CHUNK],
        dtype: "|u1",
        compressor: null,
        filters: null,
        fill_value: 0,
        order: "C",
      }),
    };
    offsets.forEach((offset, i) => (refs[`a/${i}`] = [target, offset, CHUNK]));
    // References need the full build, which no earlier case loaded: its memory is this case's.
    const arr = await open(new ReferenceStore({ version: 1, refs }), { path: "a" });
    await ctx.clearLog();
    const { data } = await arr.get(null);
    for (const [i, offset] of offsets.entries()) {
      const range = `bytes=${offset}-${offset + CHUNK - 1}`;
      const want = new Uint8Array(
        await (await fetch(file, { headers: { Range: range } })).arrayBuffer(),
      );
      equal(want.length, CHUNK, `the test's own ${range}`);
      for (let j = 0; j < CHUNK; j++)
        if (data[i * CHUNK + j] !== want[j])
          throw new Error(
            `chunk ${i} (${range}): byte ${j} is ${data[i * CHUNK + j]}, not ${want[j]}`,
          );
    }
    const asked = (await ctx.requests()).filter((r) => r.path.endsWith("/c/1/0"));
    ok(asked.length >= offsets.length, `each range asked of the server: ${JSON.stringify(asked)}`);
    const wasm = memoryUsage().wasmBytes;
    console.log(
      `scale ignored ranges: ${(wasm / MiB).toFixed(1)} MiB of wasm memory for ${offsets.length} ranges of a ${(size / MiB).toFixed(0)} MiB file served whole`,
    );
    ok(
      wasm < 40 * MiB,
      `wasm memory is ${(wasm / MiB).toFixed(1)} MiB for three 4 KiB ranges of a ${(size / MiB).toFixed(0)} MiB file (under 40)`,
    );
    arr.free();
  },
};

/**
 * zarr-wasm/zarrita's mergeRanges under zarrita.js at real sizes: a 2048 x 2048 region of a
 * 64 MiB shard is four 2 MiB inner chunks, side by side in the shard (zarr-python lays them in
 * Morton order); zarrita asks for each on its own, and through mergeRanges they are one request
 * of 8 MiB, its body arriving in 64 KiB (then 1 KiB) writes. The values are the formula's, and an abort of one
 * region ends its own requests while a region read beside it stays exact.
 */
const mergedRangesCase = {
  name: "scale: mergeRanges under zarrita.js: a 2048 x 2048 region of a 64 MiB shard (four 2 MiB inner chunks) is the index and one merged request of 8 MiB, bodies in 64 KiB and 1 KiB writes, exact; an aborted region beside another ends alone",
  async run(ctx) {
    const { zarrita: zarr, plugin } = ctx;
    const a = ARRAYS.sharded;
    for (const partBytes of [65536, 1024]) {
      const url = `${ctx.scaleBase.replace(ctx.origin, `${ctx.origin}/__parts/${partBytes}`)}/${a.path}`;
      const read = async (store) => {
        await ctx.clearLog();
        const arr = await zarr.open(zarr.root(store), { kind: "array" });
        const { data } = await zarr.get(arr, [zarr.slice(0, 2048), zarr.slice(0, 2048)]);
        const shard = (await ctx.requests()).filter((r) => r.path.endsWith("/c/0/0"));
        return { data, shard };
      };
      const alone = await read(new zarr.FetchStore(url));
      const merged = await read(plugin.mergeRanges(new zarr.FetchStore(url)));
      checkBlock(
        merged.data,
        a.dtype,
        0,
        0,
        2048,
        2048,
        `through mergeRanges, ${partBytes}-byte writes`,
      );
      // The inner chunks' requests: the index's is 516 bytes (HEAD and a range in Node and
      // Chromium alike: zarrita's FetchStore asks so).
      const inner = (shard) => shard.filter((r) => r.method === "GET" && r.bytes > MiB);
      const [one, four] = [inner(merged.shard), inner(alone.shard)];
      equal(four.length, 4, `zarrita alone asks for each inner chunk: ${four.map((r) => r.range)}`);
      equal(one.length, 1, `one request for the four: ${one.map((r) => r.range)}`);
      equal(
        one[0].bytes,
        four.reduce((n, r) => n + r.bytes, 0),
        "the merged request is the four inner chunks' bytes, no more",
      );
      equal(
        merged.shard.length,
        alone.shard.length - 3,
        `three requests fewer in all (${merged.shard.length} against ${alone.shard.length})`,
      );
    }

    // Two neighbouring inner chunks of the other shard read at once, so merged into one request;
    // one read aborted while the bytes arrive. zarrita.js shares a shard's index fetch with the
    // read that started it, signal and all (an abort of that read rejects the other with it,
    // with or without mergeRanges): the index is read first.
    const url = `${ctx.scaleBase.replace(ctx.origin, `${ctx.origin}/__parts/65536`)}/${a.path}`;
    const store = plugin.mergeRanges(new zarr.FetchStore(url));
    const arr = await zarr.open(zarr.root(store), { kind: "array" });
    await zarr.get(arr, [zarr.slice(8191, 8192), zarr.slice(8191, 8192)]);
    await ctx.clearLog();
    const stop = new AbortController();
    const aborted = zarr.get(arr, [zarr.slice(4096, 5120), zarr.slice(0, 1024)], {
      opts: { signal: stop.signal },
    });
    // Below it, and next to it in the shard (Morton order: (0, 0), (1, 0), (0, 1)...).
    const kept = zarr.get(arr, [zarr.slice(5120, 6144), zarr.slice(0, 1024)]);
    setTimeout(() => stop.abort(), 5);
    const [gone, done] = await Promise.allSettled([aborted, kept]);
    equal(gone.status, "rejected", "the aborted read rejects");
    equal(gone.reason?.name, "AbortError", "with an AbortError");
    equal(done.status, "fulfilled", `the read beside it reads (${done.reason})`);
    checkBlock(done.value.data, a.dtype, 5120, 0, 1024, 1024, "the read beside the abort");
    const both = (await ctx.requests()).filter((r) => r.path.endsWith("/c/1/0"));
    equal(both.length, 1, `one request for the two inner chunks: ${both.map((r) => r.range)}`);
    ok(!both[0].aborted, "not aborted: the other read still needed it");
  },
};

export const scaleCases = [
  // Smallest result first: wasm memory is a high-water mark (see wholeReadCase).
  wholeReadCase("chunks_1mib"),
  partsCase(1, "small", 64),
  partsCase(1024, "ome", 1024),
  partsCase(65536, "ome", 2048),
  wholeReadCase("ome"),
  wholeReadCase("chunks_4mib"),
  wholeReadCase("chunks_16mib"),
  sliceCase,
  tileCase,
  otherOriginTileCase,
  mergedRangesCase,
  wholeReadCase("sharded"),
  giveBackCase,
  ignoredRangeCase,
  stressCase(false),
  stressCase(true),
];
