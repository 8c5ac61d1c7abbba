// The public API of zarr-wasm. The wasm module loads itself on the first open(): in browsers (plain
// <script type="module"> or a bundler) it is fetched next to this file, in Node it is read from disk.
import initWasm, { WasmStore } from "./zarr_wasm.js";

let loading = null;
let wasm = null;

function loadWasm() {
  loading ??= (async () => {
    const url = new URL("./zarr_wasm_bg.wasm", import.meta.url);
    if (url.protocol === "file:" && globalThis.process?.versions?.node) {
      // Node (and Deno, Bun): fetch() cannot read file: URLs. Bundlers must leave this import
      // alone: webpack is told so, and a name in a variable is one that esbuild and Vite do not
      // try to resolve for the browser.
      const nodeFs = "node:fs/promises";
      const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ nodeFs);
      wasm = await initWasm({ module_or_path: await readFile(url) });
    } else {
      wasm = await initWasm({ module_or_path: url });
    }
  })().catch((err) => {
    loading = null; // let a later call try again
    throw err;
  });
  return loading;
}

/**
 * The module's memory: `{ wasmBytes }`, the size of the WebAssembly memory (0 before the first
 * open()). It grows to the largest read's needs and is reused; it does not shrink.
 */
export function memoryUsage() {
  return { wasmBytes: wasm ? wasm.memory.buffer.byteLength : 0 };
}

/**
 * A selection along one dimension, Python style: `slice(stop)` or `slice(start, stop, step)`;
 * `null` or `undefined` bounds mean the ends (so `slice(5, undefined)` is `5:`).
 */
export function slice(...args) {
  const [start, stop, step] = args.length === 1 ? [null, args[0], null] : args;
  return { start: start ?? null, stop: stop ?? null, step: step ?? null };
}

// ---------------------------------------------------------------------------------------------
// Errors: every rejection is one of these classes, so callers can test with `instanceof`; each
// message names the key or URL and what was wrong.

/** The base class of every error zarr-wasm rejects with. */
export class ZarrError extends Error {}
/** No Zarr node (no zarr.json, .zarray or .zgroup) at the path; no consolidated metadata where asked for. */
export class NotFoundError extends ZarrError {}
/** Metadata that is not JSON or not valid Zarr. */
export class MetadataError extends ZarrError {}
/** Valid Zarr that uses something not implemented (a codec, data type, grid...). */
export class UnsupportedError extends ZarrError {}
/** A chunk that cannot be decoded: the message names the codec, the chunk and the problem. */
export class CodecError extends ZarrError {}
/** A store that could not deliver bytes; `status` is the HTTP status where a server answered one. */
export class StoreError extends ZarrError {
  constructor(message, options) {
    super(message, options);
    this.status = options?.status ?? null;
  }
}
/** A selection, chunk coordinate, path or option that does not fit. */
export class SelectionError extends ZarrError {}
/** The call's AbortSignal was aborted. */
export class AbortError extends ZarrError {}

const ERRORS = { NotFoundError, MetadataError, UnsupportedError, CodecError, StoreError, SelectionError, AbortError };
// Names set here, not taken from the classes: minifiers rename classes.
for (const [name, Class] of Object.entries({ ZarrError, ...ERRORS })) {
  Object.defineProperty(Class.prototype, "name", { value: name, writable: true, configurable: true });
}

/** The error a wasm call rejected with, as an instance of its class (other errors pass through). */
function typed(err) {
  const Class = err instanceof Error && !(err instanceof ZarrError) ? ERRORS[err.name] : undefined;
  return Class ? new Class(err.message, { status: err.status, cause: err }) : err;
}
const call = async (f) => {
  try {
    return await f();
  } catch (err) {
    throw typed(err);
  }
};

// ---------------------------------------------------------------------------------------------
// Stores. Any object with `get(key, { signal })` (and optionally `getRange(key, range,
// { signal })`, `range` being `{ offset, length }` or `{ suffixLength }`) resolving to a
// Uint8Array, or undefined for a missing key, is a store.

// The opened store behind each store object: reused by every open() of it.
const opened = new WeakMap();

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
   * e.g. to presign URLs), `cacheSize` (bytes of recent responses kept, default 0; identical
   * requests in flight are always shared).
   */
  constructor(url, options = {}) {
    this.url = String(url);
    this.options = { ...options };
  }
}

/** A store held in memory: a Map from keys to bytes (`set` to add, or pass entries). */
export class MemoryStore {
  constructor(entries) {
    this.map = new Map();
    for (const [key, value] of entries ?? []) this.set(key, value);
  }
  set(key, value) {
    this.map.set(key, value instanceof Uint8Array ? value : new Uint8Array(value));
    return this;
  }
  get(key) {
    return this.map.get(key);
  }
  getRange(key, range) {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    if (range.suffixLength !== undefined) return value.subarray(Math.max(0, value.length - range.suffixLength));
    return value.subarray(range.offset, range.length === undefined ? undefined : range.offset + range.length);
  }
}

/**
 * A Zarr hierarchy in a ZIP file (zarr-python's ZipStore), read with range requests: the end of
 * the file, its central directory, then only the members (and parts of stored members) reads
 * need. `source` is the archive's URL, or a store and `key` the archive's key in it.
 */
export class ZipStore {
  /** `options`: `cacheSize` (bytes of recent member data kept, default 0). */
  constructor(source, key = "", options = {}) {
    this.source = typeof source === "string" || source instanceof URL ? new FetchStore(source) : source;
    this.key = String(key);
    this.options = { ...options };
  }
}

function label(store) {
  return store.url ? String(store.url) : `${store.constructor?.name ?? "store"}:`;
}

/** Rejects with an AbortError when `signal` aborts, else settles as `promise` does. */
function unlessAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const abort = () => reject(new AbortError(`the signal was aborted (${signal.reason ?? "no reason given"})`));
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/**
 * The opened store for a URL or a store object (resolves; a ZIP archive reads its directory).
 * FetchStores and ZipStores are opened once and shared by every open() of them. A store object
 * of the user's is opened each time: the opened store holds the object, so keeping it keyed by
 * that object would keep both alive for ever.
 */
async function openStore(location, signal) {
  if (typeof location === "string" || location instanceof URL) return WasmStore.fetch(String(location), {});
  if (!(location instanceof FetchStore) && !(location instanceof ZipStore)) {
    return WasmStore.js(location, label(location), { cacheSize: location.cacheSize });
  }
  let handle = opened.get(location);
  if (handle === undefined) {
    if (location instanceof FetchStore) handle = Promise.resolve(WasmStore.fetch(location.url, location.options ?? {}));
    else {
      // The directory is read once for every caller, so without any one caller's signal: each
      // caller stops waiting when its own signal aborts.
      handle = openStore(location.source).then((inner) => inner.zip(location.key, location.options, null));
    }
    opened.set(location, handle);
    // A failed opening is tried again by the next call (unless another has replaced it).
    handle.catch(() => opened.get(location) === handle && opened.delete(location));
  }
  return unlessAborted(handle, signal);
}

// The wasm handle behind each node; kept out of the objects so they show only their metadata.
// Handles are freed by a FinalizationRegistry (wasm-bindgen --weak-refs) once a node is collected.
const handles = new WeakMap();

class Node {
  constructor(handle) {
    handles.set(this, handle);
    Object.assign(this, handle.info());
  }

  /**
   * Releases the node's memory in the module now; otherwise that happens once the node is
   * garbage-collected. Reads already started finish; later calls reject with a SelectionError.
   * `using arr = await open(...)` calls it at the end of the block (Symbol.dispose).
   */
  free() {
    handles.get(this)?.free();
    handles.delete(this);
  }
}
if (Symbol.dispose) Node.prototype[Symbol.dispose] = Node.prototype.free;

/** The wasm handle of a node that has not been freed. */
function handle(node) {
  const h = handles.get(node);
  if (!h) throw new SelectionError(`the ${node.kind} at "${node.path}" was freed`);
  return h;
}

/** A Zarr array. Reads resolve to `{ data, shape, stride }`, `data` a typed array in C order. */
export class ZarrArray extends Node {
  /**
   * Reads a selection: one entry per dimension, `null` (all), an integer (drops the axis) or
   * `slice()`. `options`: `signal` (an AbortSignal), `concurrency` (chunks in flight, default
   * 64), `onProgress({ chunksDone, chunksTotal, bytesFetched })` (called as each chunk is in
   * place), `out` (a typed array of the result's type and length to write into).
   */
  get(selection, options = {}) {
    const { signal, concurrency, onProgress, out } = options;
    return call(() => handle(this).get(selection ?? null, { signal, concurrency, onProgress, out }));
  }

  /**
   * Reads a selection chunk by chunk, for viewers that draw each part as it arrives: yields
   * `{ coords, origin, shape, data, stride }` for every chunk the selection touches, in chunk
   * order, `origin` being where the part starts in the whole selection's result. `concurrency`
   * (default 4) chunks are read ahead; leaving the loop early cancels them.
   */
  async *iterate(selection, options = {}) {
    const ahead_ = options.concurrency ?? 4;
    if (!Number.isInteger(ahead_) || ahead_ < 1 || ahead_ > 1024) {
      throw new SelectionError(`iterate option concurrency must be an integer from 1 to 1024, not ${ahead_}`);
    }
    if (options.signal?.aborted) throw new AbortError(`the signal was aborted before iterating ${this.path}`);
    const regions = (() => {
      try {
        return handle(this).chunkRegions(selection ?? null);
      } catch (err) {
        throw typed(err);
      }
    })();
    const stop = new AbortController();
    const abort = () => stop.abort();
    options.signal?.addEventListener("abort", abort);
    const read = (r) => {
      const p = this.get(r.selection, { signal: stop.signal }).then((part) => ({ coords: r.coords, origin: r.outStart, ...part }));
      p.catch(() => {}); // awaited in turn below; until then a failure is not unhandled
      return p;
    };
    const ahead = [];
    let next = 0;
    try {
      while (next < regions.length || ahead.length) {
        while (next < regions.length && ahead.length < ahead_) ahead.push(read(regions[next++]));
        const part = await ahead.shift().catch((err) => {
          throw options.signal?.aborted ? new AbortError(err.message) : err;
        });
        yield part;
      }
    } finally {
      options.signal?.removeEventListener("abort", abort);
      stop.abort();
    }
  }

  /** Reads the whole chunk at chunk-grid coordinates `coords`. */
  getChunk(coords, options = {}) {
    return call(() => handle(this).getChunk(coords, options.signal ?? null));
  }

  /** Where the chunk at `coords` lies: `{ origin, shape }` in array coordinates (any grid kind). */
  chunkExtent(coords) {
    try {
      return handle(this).chunkExtent(coords);
    } catch (err) {
      throw typed(err);
    }
  }
}

/** A Zarr group. */
export class Group extends Node {
  /** Opens the node at `path`, relative to this group. */
  async open(path) {
    return wrap(await call(() => handle(this).open(String(path))));
  }
}

function wrap(handle) {
  return handle.info().kind === "array" ? new ZarrArray(handle) : new Group(handle);
}

/**
 * Opens the array or group at `options.path` (default: the root) of a hierarchy, Zarr v3 or v2.
 * `location` is a URL, a FetchStore, a ZipStore, a MemoryStore or any store object. A v3 node
 * costs one request; a v2 array three (zarr.json, then .zarray and .zattrs together), two with
 * `zarrFormat: 2`. With `consolidated: true` the node is opened from the consolidated metadata
 * at the root of the hierarchy (v2's `.zmetadata`, or the v3 root's `zarr.json`): one request,
 * and none for any node opened below it.
 */
export async function open(location, options = {}) {
  await loadWasm();
  const { zarrFormat, consolidated, chunkCacheSize, signal } = options;
  return call(async () => {
    const store = await openStore(location, signal);
    return wrap(await store.open(options.path ?? "", { zarrFormat, consolidated, chunkCacheSize }, signal ?? null));
  });
}
