// The two readers the viewer can stream tiles with, behind one small interface, each counting the
// requests it makes and the bytes it receives: zarr-wasm (decoding in a pool of workers) and
// zarrita.js with numcodecs.js (on the main thread), for a side-by-side comparison.
import * as zw from "zarr-wasm";
import * as zarrita from "zarrita";

function newStats() {
  return { requests: 0, bytes: 0, tiles: 0, aborted: 0, tileMs: [] };
}

/** zarr-wasm: arrays opened with `workers` (a WorkerPool), counted through onProgress. */
export function zarrWasmReader(pool) {
  const stats = newStats();
  return {
    name: "zarr-wasm",
    stats,
    async openArray(url, path) {
      const arr = await zw.open(url, { path, workers: pool ?? undefined });
      return {
        async read(selection, signal) {
          // Each report holds the read's totals so far: the differences are added up (reads
          // aborted before their last report are not counted, for either reader).
          let seen = { requests: 0, bytesFetched: 0 };
          const onProgress = (p) => {
            stats.requests += p.requests - seen.requests;
            stats.bytes += p.bytesFetched - seen.bytesFetched;
            seen = p;
          };
          return arr.get(selection.map(toZarrWasm), { signal, onProgress });
        },
      };
    },
  };
}

const toZarrWasm = (s) => (s !== null && typeof s === "object" ? zw.slice(s.start, s.stop) : s);

/**
 * zarrita.js: its FetchStore wrapped to count requests and bytes once the array is open (as
 * zarr-wasm's counts are its reads', not its opening).
 */
export function zarritaReader() {
  const stats = newStats();
  // Requests are counted once answered, as zarr-wasm's progress reports count them.
  const counted = (inner, counting) => ({
    async get(key, options) {
      const value = await inner.get(key, options);
      if (counting()) stats.requests++, (stats.bytes += value?.length ?? 0);
      return value;
    },
    async getRange(key, range, options) {
      const value = await inner.getRange(key, range, options);
      if (counting()) stats.requests++, (stats.bytes += value?.length ?? 0);
      return value;
    },
  });
  return {
    name: "zarrita.js",
    stats,
    async openArray(url, path) {
      let opened = false;
      const store = counted(new zarrita.FetchStore(url), () => opened);
      // zarr.json first (as zarr-wasm does), then v2's .zarray: zarrita.open alone asks for v2 first.
      const location = zarrita.root(store).resolve(path);
      const arr = await zarrita.open.v3(location, { kind: "array" }).catch((err) => {
        if (!/NotFound/.test(err?.name ?? "")) throw err;
        return zarrita.open.v2(location, { kind: "array" });
      });
      opened = true;
      return {
        async read(selection, signal) {
          const s = selection.map((s) =>
            s !== null && typeof s === "object" ? zarrita.slice(s.start, s.stop) : s,
          );
          return cOrder(await zarrita.get(arr, s, { signal }));
        },
      };
    },
  };
}

/** A 2-D result in C order: zarrita.js returns an F-ordered array (v2 `order: "F"`, a transpose
 * codec) in its own order, with its strides. */
function cOrder({ data, shape, stride }) {
  const [h, w] = shape;
  if (stride[1] === 1 && stride[0] === w) return { data, shape };
  const out = new data.constructor(h * w);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) out[y * w + x] = data[y * stride[0] + x * stride[1]];
  return { data: out, shape };
}
