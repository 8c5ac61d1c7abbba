// Reads of whole arrays on the main thread and through worker pools, measuring for each read its
// wall time and the longest time the main thread was unavailable: a heartbeat (a setTimeout(0)
// chain) runs during the read, and its longest gap between beats is the longest task the read put
// on the main thread (plus the timer's own clamp, shown by the idle row). Web APIs only: runs the
// same in Node (bench.mjs) and in Chromium (offthread.html).

import { median, sameBytes } from "./codecs.js";

/** Runs `read` with the heartbeat going: `{ ms, stall }`, stall the longest gap between beats. */
async function timed(read) {
  let last = performance.now();
  let stall = 0;
  let beating = true;
  const beat = () => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
    if (beating) setTimeout(beat, 0);
  };
  setTimeout(beat, 0);
  const t0 = performance.now();
  const value = await read();
  const ms = performance.now() - t0;
  beating = false;
  beat();
  return { ms, stall, value };
}

/**
 * For each array of `paths`: medians of wall time and longest stall per reader, `runs` timed runs
 * after `warmup`, readers alternating. `workers` are the pool sizes to try. The arrays are read
 * over HTTP below `base`, or with `entries` (`[key, bytes]` of the hierarchy) from memory: a
 * MemoryStore (which the workers ask the main thread for) and a Map for zarrita.js.
 */
export async function measureOffThread({
  zw,
  zarrita,
  base,
  entries,
  paths,
  runs,
  warmup,
  workers,
}) {
  const memory = entries && new zw.MemoryStore(entries);
  const zarritaStore = entries
    ? new Map(entries.map(([k, v]) => [`/${k}`, v]))
    : new zarrita.FetchStore(base);
  const location = memory ?? base;
  const pools = workers.map((n) => [n, new zw.WorkerPool(n)]);
  const rows = [];
  try {
    // The heartbeat alone, for as long as a read: its own gaps are the floor of the stall column.
    const idle = [];
    for (let i = 0; i < runs; i++)
      idle.push((await timed(() => new Promise((r) => setTimeout(r, 100)))).stall);
    rows.push({ path: "(idle)", reader: "no read, 100 ms", ms: null, stall: median(idle) });
    for (const path of paths) {
      const readers = {
        "zarrita.js, main thread": async () => {
          const arr = await zarrita.open(zarrita.root(zarritaStore).resolve(path), {
            kind: "array",
          });
          return () => zarrita.get(arr);
        },
        "zarr-wasm, main thread": async () => {
          const arr = await zw.open(location, { path });
          return () => arr.get();
        },
      };
      for (const [n, pool] of pools) {
        readers[`zarr-wasm, ${n} worker${n > 1 ? "s" : ""}`] = async () => {
          const arr = await zw.open(location, { path, workers: pool });
          return () => arr.get();
        };
      }
      const read = {};
      for (const [name, make] of Object.entries(readers)) read[name] = await make();
      const names = Object.keys(read);
      const results = {};
      for (const name of names) results[name] = (await read[name]()).data;
      for (const name of names) {
        if (!sameBytes(results[name], results[names[0]]))
          throw new Error(`${path}: ${name} disagrees with ${names[0]}`);
      }
      const samples = Object.fromEntries(names.map((n) => [n, []]));
      for (let i = 0; i < warmup + runs; i++) {
        for (const name of i % 2 ? [...names].reverse() : names) {
          const { ms, stall } = await timed(read[name]);
          if (i >= warmup) samples[name].push({ ms, stall });
        }
      }
      for (const name of names) {
        rows.push({
          path,
          reader: name,
          bytes: results[name].byteLength,
          ms: median(samples[name].map((s) => s.ms)),
          stall: median(samples[name].map((s) => s.stall)),
          worstStall: Math.max(...samples[name].map((s) => s.stall)),
        });
      }
    }
  } finally {
    for (const [, pool] of pools) pool.terminate();
  }
  return rows;
}
