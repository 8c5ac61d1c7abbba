// The public API of zarr-wasm. The wasm module loads itself on the first open(): in browsers (plain
// <script type="module"> or a bundler) it is fetched next to this file, in Node it is read from disk.
import initWasm, { openFetch } from "./zarr_wasm.js";

let loading = null;

function loadWasm() {
  loading ??= (async () => {
    const url = new URL("./zarr_wasm_bg.wasm", import.meta.url);
    if (url.protocol === "file:" && globalThis.process?.versions?.node) {
      // Node (and Deno, Bun): fetch() cannot read file: URLs. Bundlers must leave this import alone.
      const { readFile } = await import(/* webpackIgnore: true */ "node:fs/promises");
      await initWasm({ module_or_path: await readFile(url) });
    } else {
      await initWasm({ module_or_path: url });
    }
  })().catch((err) => {
    loading = null; // let a later call try again
    throw err;
  });
  return loading;
}

/**
 * A selection along one dimension, Python style: `slice(stop)` or `slice(start, stop, step)`;
 * `null` or `undefined` bounds mean the ends (so `slice(5, undefined)` is `5:`).
 */
export function slice(...args) {
  const [start, stop, step] = args.length === 1 ? [null, args[0], null] : args;
  return { start: start ?? null, stop: stop ?? null, step: step ?? null };
}

/** A store that reads keys over HTTP(S) below `url` with fetch(). */
export class FetchStore {
  /**
   * `options` (all optional): `suffixRequests` (default true: read a shard index at the end with one
   * `Range: bytes=-N` request; false: HEAD for the length, then a plain range, which spares browsers
   * a CORS preflight), `treat403AsMissing` (buckets that answer 403 for missing keys), `retries`
   * (default 3, for network failures and 408/429/5xx), `maxRequests` (requests in flight at once,
   * default 32), `mergeGap` (bytes between shard ranges fetched together, default 4096),
   * `indexCacheSize` (shard indexes kept per array, default 4096), `headers` (added to every request),
   * `credentials` ("omit", "same-origin", "include"), `fetch` (your own `(Request) => Promise<Response>`,
   * e.g. to presign URLs).
   */
  constructor(url, options = {}) {
    this.url = String(url);
    this.options = { ...options };
  }
}

// The wasm handle behind each node; kept out of the objects so they show only their metadata.
// Handles are freed by a FinalizationRegistry (wasm-bindgen --weak-refs) once a node is collected.
const handles = new WeakMap();

class Node {
  constructor(handle) {
    handles.set(this, handle);
    Object.assign(this, handle.info());
  }
}

/** A Zarr array. Reads resolve to `{ data, shape, stride }`, `data` a typed array in C order. */
export class ZarrArray extends Node {
  /** Reads a selection: one entry per dimension, `null` (all), an integer (drops the axis) or `slice()`. */
  get(selection, options = {}) {
    return handles.get(this).get(selection ?? null, options.signal ?? null);
  }

  /** Reads the whole chunk at chunk-grid coordinates `coords`. */
  getChunk(coords, options = {}) {
    return handles.get(this).getChunk(coords, options.signal ?? null);
  }

  /** Where the chunk at `coords` lies: `{ origin, shape }` in array coordinates (any grid kind). */
  chunkExtent(coords) {
    return handles.get(this).chunkExtent(coords);
  }
}

/** A Zarr group. */
export class Group extends Node {
  /** Opens the node at `path`, relative to this group. */
  async open(path) {
    return wrap(await handles.get(this).open(String(path)));
  }
}

function wrap(handle) {
  return handle.info().kind === "array" ? new ZarrArray(handle) : new Group(handle);
}

/**
 * Opens the array or group at `options.path` (default: the root) of a hierarchy, given as a URL
 * or a FetchStore, Zarr v3 or v2. Costs one request for a Zarr v3 node; a v2 array costs three
 * (zarr.json, then .zarray and .zattrs together), two with `zarrFormat: 2`. With
 * `consolidated: true` the node is opened from the consolidated metadata at the root of the
 * hierarchy (v2's `.zmetadata`, or the v3 root's `zarr.json`): one request, and none for any
 * node opened below it.
 */
export async function open(location, options = {}) {
  await loadWasm();
  const store = location instanceof FetchStore ? location : new FetchStore(location);
  const { zarrFormat, consolidated } = options;
  return wrap(await openFetch(store.url, options.path ?? "", store.options ?? {}, { zarrFormat, consolidated }, options.signal ?? null));
}
