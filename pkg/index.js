// The public API of zarr-wasm. The wasm module loads itself on the first open(): in browsers (plain
// <script type="module"> or a bundler) it is fetched next to this file, in Node it is read from disk.
// What each export does is documented once, in index.d.ts; comments here say how.
import { loadExtra } from "./extra.js";
import { chooseKind, chosenKind, compiledModule, glueOf, largerKind } from "./load.js";
import { AbortError, NotFoundError, ResetError, SelectionError, typed } from "./errors.js";
import {
  PARTS_PER_WORKER,
  describeStore,
  dropFromWorkers,
  readChunkInWorkers,
  readInWorkers,
  readThrough,
  readsInWorkers,
  hasWorkers,
  inWorkers,
  refreshInWorkers,
  workersOf,
  shareWorkers,
  startingAfter,
  workerPool,
} from "./offthread.js";
import * as schemas from "./options.js";
import { checkOptions, show } from "./options.js";
import {
  FetchStore,
  MemoryStore,
  IcechunkStore,
  ReferenceStore,
  ZipStore,
  atSnapshot,
  childrenDocuments,
  firstDocuments,
  multiscalePaths,
  suffixRangesFor,
  firstShardIndexes,
  label,
  recordReferenceFile,
  resolved,
  where,
} from "./stores.js";

export { WorkerPool } from "./pool.js";
export { FileSystemHandleStore } from "./handles.js";
export { FetchStore, IcechunkStore, MemoryStore, ReferenceStore, ZipStore };

// The instance in use: its glue (wasm-bindgen's JavaScript for it) and its build ("zarr", or
// "full": the same, Zarr Vectors and kerchunk references, see load.js).
let glue = null;
let glueKind = null;
// The load of `loadingKind` in progress or done.
let loading = null;
let loadingKind = null;

/**
 * Loads the module of build `want`, once. The full build reads Zarr too: once it is asked for,
 * nothing else is loaded. Asked for after the other, it replaces it: the nodes opened in the
 * first open themselves again in it (as after a trap).
 */
function loadWasm(want = chosenKind()) {
  const kind = largerKind(loadingKind, want);
  if (loading && loadingKind === kind) return loading;
  loadingKind = kind;
  // Workers started from now on get this build (pool.js), even before it has loaded here.
  chooseKind(kind);
  const attempt = (async () => {
    const [next, module] = await Promise.all([glueOf(kind), compiledModule(kind)]);
    await next.default({ module_or_path: module });
    next.__zarrOnTrap((err) => onTrap(err, next));
    const replaced = glue !== null;
    glue = next;
    glueKind = kind;
    chooseKind(kind); // for workers started from now on (pool.js)
    if (replaced) {
      keepUnreadAttributes();
      generation++;
      reviveAll();
    }
  })().catch((err) => {
    // A later call tries again; the instance loaded before, if any, stays in use.
    if (loading === attempt) {
      loading = glue ? Promise.resolve() : null;
      loadingKind = glueKind;
    }
    throw err;
  });
  loading = attempt;
  return attempt;
}

/** Downloads, compiles and starts the module now, before the first open() needs it (see index.d.ts). */
export function preload(options = {}) {
  try {
    options = checkOptions(options, "preload", schemas.PRELOAD);
  } catch (err) {
    return Promise.reject(err);
  }
  const want = options.write ? "write" : options.full || options.vectors ? "full" : chosenKind();
  return loadWasm(want);
}

/**
 * `attempt()`, and once more in the full build where it failed for a codec that only the full
 * build has (numcodecs' filters and object codecs, the registry's array codecs: the Zarr build
 * leaves them out, src/codecs/mod.rs). The page loads the full build then, once; the nodes it
 * opened move to it, and a pool's workers are sent it before their next node (pool.js).
 */
async function inFullBuildIfNeeded(attempt) {
  try {
    return await attempt();
  } catch (err) {
    if (!(err?.fullBuild || err?.cause?.fullBuild) || glueKind !== "zarr") throw err;
    await loadWasm("full");
    return attempt();
  }
}

// In a page, the download starts as this file is imported: it overlaps the page's own start.
// After the page's own top-level code, which may have chosen the full build (preload). Not in
// workers: a pool's workers are given the module their page compiled (pool.js).
if (typeof document !== "undefined")
  queueMicrotask(() => {
    if (loadingKind !== null) return;
    // Its glue too, a module of its own (load.js). open() reports failures.
    compiledModule().catch(() => {});
    glueOf(chosenKind()).catch(() => {});
  });

/** The module's memory (see index.d.ts). */
export function memoryUsage() {
  if (!glue) return { wasmBytes: 0, heapBytes: 0 };
  return { wasmBytes: glue.__zarrMemory()?.buffer.byteLength ?? 0, heapBytes: glue.heapBytes() };
}

// ---------------------------------------------------------------------------------------------
// Surviving a trap. A trap (an allocation failure, a bug) leaves the instance unusable, and one
// inside an async read would leave its promise pending for ever. The glue reports every failed
// call into the instance (scripts/guard-glue.mjs); then the calls in flight reject with a
// ResetError and the next call starts a fresh instance. Nodes opened before open themselves again
// in it (see Revivable below).

let generation = 0; // instances replaced so far
let resetPending = false;
const inFlight = new Set(); // the reject functions of the calls in flight

function onTrap(err, trapped) {
  if (trapped === glue) {
    if (resetPending) return; // one failure can be reported by several nested calls
    resetPending = true;
    generation++;
    // The next call into the module starts a fresh instance; so does the next microtask, before
    // callbacks and finalizers of the failed one run into it.
    glue.__zarrScheduleReset();
    queueMicrotask(() => {
      if (resetPending) glue.__wbg_reset_state();
    });
  }
  // (A trap in an instance already replaced by the full build leaves the one in use alone;
  // the calls in flight are failed all the same, as they may have been the failed instance's.)
  const reset = new ResetError(
    `the WebAssembly module failed (${err?.name ?? "Error"}: ${err?.message ?? err}) and was reset: this call was abandoned; nodes opened before open themselves again on their next read`,
    { cause: err },
  );
  const rejects = [...inFlight];
  inFlight.clear();
  for (const reject of rejects) reject(reset);
}

/** A call into the module that settles even if the module fails while it runs. */
function call(f) {
  return new Promise((resolve, reject) => {
    inFlight.add(reject);
    resetPending = false; // the glue starts the fresh instance on this call
    // Out of the set before the caller's code resumes: the caller may ask for the memory back.
    const settled = () => {
      inFlight.delete(reject);
      if (inFlight.size === 0) whenIdle();
    };
    (async () => f())().then(
      (value) => {
        settled();
        resolve(value);
      },
      (err) => {
        settled();
        reject(typed(err));
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Giving memory back. WebAssembly memory grows and never shrinks: after a large read the
// instance keeps its high-water mark for the life of the page. Once nothing has been asked of the
// module for a while and most of its memory is free, the instance is replaced by a fresh one
// (instantiating the compiled module again takes a few milliseconds); the nodes open themselves
// again in it, as after a trap.

const MiB = 1 << 20;
/** Memory worth giving back: below this, keeping the instance costs less than its caches are worth. */
const GIVE_BACK_ABOVE = 128 * MiB;
/** How long the module must have been idle: a viewer between bursts of tiles is not idle for long. */
const IDLE_MS = 2000;
let idleTimer = null;

function whenIdle() {
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = null;
  if (!glue || !worthGivingBack()) return;
  idleTimer = setTimeout(() => {
    idleTimer = null;
    releaseMemory();
  }, IDLE_MS);
  idleTimer.unref?.(); // Node: a timer of ours must not keep the process alive
}

/** Whether the instance holds much memory, most of it free (not the chunk caches' or nodes'). */
function worthGivingBack() {
  const { wasmBytes, heapBytes: used } = memoryUsage();
  return wasmBytes >= GIVE_BACK_ABOVE && used * 4 <= wasmBytes;
}

/** Gives the module's memory back now, unless a call is in flight (see index.d.ts). */
export function releaseMemory() {
  if (!glue || inFlight.size > 0 || resetPending) return false;
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = null;
  generation++;
  glue.__wbg_reset_state();
  reviveAll();
  return true;
}

/** For `npm run bench` (see index.d.ts). */
export async function __timingsForBench(on = true) {
  await loadWasm();
  const [decode, assemble, copyOut] = glue.timingsForBench(on);
  return { decode, assemble, copyOut };
}

/** Forces a trap in the module after `ms` milliseconds, inside an async poll as a failing read would (for tests). */
export function __trapForTests(ms = 0) {
  return call(async () => {
    await loadWasm();
    return glue.trapForTests(ms);
  });
}

/** A selection along one dimension, Python style (see index.d.ts). */
export function slice(...args) {
  const [start, stop, step] = args.length === 1 ? [null, args[0], null] : args;
  return { start: start ?? null, stop: stop ?? null, step: step ?? null };
}

// ---------------------------------------------------------------------------------------------
// Errors (errors.js): every rejection is one of these classes.
export {
  ZarrError,
  NotFoundError,
  MetadataError,
  UnsupportedError,
  CodecError,
  StoreError,
  SelectionError,
  AbortError,
  ResetError,
  WorkerError,
} from "./errors.js";

/** Chunk coordinates for a message, whatever they are (BigInts, a Proxy that throws). */
function showCoords(coords) {
  try {
    return (
      JSON.stringify(coords, (_, v) => (typeof v === "bigint" ? `${v}n` : v))?.slice(0, 80) ??
      String(coords)
    );
  } catch {
    return "(coordinates that cannot be shown)";
  }
}

/**
 * Checks the options of `call` against `schema` (options.js: a TypeError or RangeError naming
 * the option), and that its signal has not aborted already (an AbortError saying `what` was
 * aborted). Returns the options, `{}` for none.
 */
function checkCall(options, call, schema, what) {
  options = checkOptions(options, call, schema);
  if (options.signal?.aborted)
    throw new AbortError(
      `${what} was aborted before it started (${options.signal.reason ?? "no reason given"})`,
    );
  return options;
}

// ---------------------------------------------------------------------------------------------
// Stores. Any object with `get(key, { signal })` (and optionally `getRange(key, range,
// { signal })`, `range` being `{ offset, length }` or `{ suffixLength }`) resolving to a
// Uint8Array, or undefined for a missing key, is a store.

// The opened store behind each store object: reused by every open() of it.
const opened = new WeakMap();

/** Rejects with an AbortError when `signal` aborts, else settles as `promise` does. */
function unlessAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const abort = () =>
      reject(new AbortError(`the signal was aborted (${signal.reason ?? "no reason given"})`));
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
  if (typeof location === "string" || location instanceof URL)
    return glue.WasmStore.fetch(String(location), withSuffixRanges(String(location), {}));
  if (!isPackageStore(location)) {
    if (typeof location?.get !== "function") {
      throw new TypeError(
        `a location must be a URL, a FetchStore, a ZipStore, a ReferenceStore, an IcechunkStore or a store object with get(key, options), not ${location === null ? "null" : typeof location}`,
      );
    }
    return glue.WasmStore.js(location, label(location), { cacheSize: location.cacheSize });
  }
  let handle = opened.get(location);
  // A store opened by an instance that has since been replaced is opened again.
  if (handle !== undefined && handle.generation !== generation) handle = undefined;
  if (handle === undefined) {
    if (location instanceof FetchStore)
      handle = Promise.resolve(
        glue.WasmStore.fetch(location.url, withSuffixRanges(location.url, location.options ?? {})),
      );
    else if (location instanceof ReferenceStore) {
      // The reference file is read (or the object parsed) once for every caller, and kept: it
      // is opened again from it (see `resolved`).
      handle = call(() => openReferences(location));
    } else if (location instanceof IcechunkStore) {
      // The ref and the snapshot are read once for every caller; opened again, it is at the
      // snapshot found then (see `resolved`).
      const pin = resolved.get(location);
      const options = pin ? atSnapshot(location.options, pin.snapshot) : location.options;
      handle = call(async () => {
        const store = await glue.WasmStore.icechunk(location.url, options, null);
        if (!pin && store.snapshotId) resolved.set(location, { snapshot: store.snapshotId });
        return store;
      });
    } else {
      // The directory is read once for every caller, so without any one caller's signal: each
      // caller stops waiting when its own signal aborts.
      // Through call(): a directory read in flight settles even if the instance is replaced.
      handle = call(async () =>
        (await openStore(location.source)).zip(location.key, location.options, null),
      );
    }
    handle.generation = generation;
    opened.set(location, handle);
    // A failed opening is tried again by the next call (unless another has replaced it).
    handle.catch(() => opened.get(location) === handle && opened.delete(location));
  }
  return unlessAborted(handle, signal);
}

/** A FetchStore's `options` with how its store asks for the end of a value (suffixRangesFor). */
function withSuffixRanges(url, options) {
  return { ...options, suffixRequests: suffixRangesFor(url, options) };
}

/** Whether reading `location` needs the full build: a ZipStore, ReferenceStore or IcechunkStore. */
function needsFullBuild(location) {
  return (
    location instanceof ZipStore ||
    location instanceof ReferenceStore ||
    location instanceof IcechunkStore
  );
}

/** Whether `location` is one of the package's stores that are opened once and kept. */
function isPackageStore(location) {
  return (
    location instanceof FetchStore ||
    location instanceof ZipStore ||
    location instanceof ReferenceStore ||
    location instanceof IcechunkStore
  );
}

/**
 * A ReferenceStore's store: from the reference file its first opening read, if it has been
 * opened (see `resolved`); else read now, from its URL (a copy of the file kept as it arrives)
 * or its object.
 */
async function openReferences(location) {
  const pin = resolved.get(location);
  if (pin) {
    // The file (or a Parquet directory's .zmetadata) and the URL it was read from: its targets
    // resolve against that URL, as when the module read it there; nothing is asked for.
    return glue.WasmStore.references(pin.url, await pin.document.text(), location.options, null);
  }
  if (location.url === undefined)
    return glue.WasmStore.references(null, referenceText(location), location.options, null);
  const recorder = recordReferenceFile(location);
  const options = { ...location.options, fetch: recorder.fetch };
  let store;
  try {
    store = await glue.WasmStore.references(location.url, null, options, null);
  } finally {
    recorder.stop();
  }
  const document = await recorder.document;
  if (document) resolved.set(location, document);
  return store;
}

/** A ReferenceStore's object as JSON (a value JSON cannot hold is a TypeError saying so). */
function referenceText(store) {
  try {
    return JSON.stringify(store.references);
  } catch (err) {
    throw new TypeError(`ReferenceStore: the reference object is not JSON (${err.message})`);
  }
}

/**
 * Frees the handle of a store opened for one open() (a URL, a store object): the node holds the
 * store itself, and the handle would otherwise keep it until garbage collection. FetchStores and
 * ZipStores keep theirs for later opens.
 */
function releaseStore(location, store) {
  if (!isPackageStore(location)) store.free();
}

/** Whether `location` is a store object of the caller's, not a URL or one of the package's stores. */
function isForeignStore(location) {
  return (
    typeof location === "object" &&
    !(location instanceof URL) &&
    !isPackageStore(location) &&
    !(location instanceof MemoryStore)
  );
}

// ---------------------------------------------------------------------------------------------
// Handles that outlive their instance. A node's wasm handle belongs to the instance that opened
// it; when that instance is replaced (a trap, or memory given back) the node opens itself again in
// the new one: reads wait for that, and the nodes alive are reopened at once, so that the
// synchronous calls (chunkExtent) find them ready. A node reopens from the documents it was
// opened from (no request); a Zarr Vectors store asks its store again.

class Revivable {
  /** `make()` resolves to the handle in the current instance; `handle` is the one made already. */
  constructor(handle, make, where) {
    this.handle = handle;
    this.generation = generation;
    this.make = make;
    this.where = where;
    this.reviving = null;
    // Shard indexes JS is fetching for the node as it opens (see keepEarlyIndexes): reads wait
    // for them rather than ask for them again.
    this.pending = null;
  }

  /** The handle, if it belongs to the current instance; a ResetError while it is made again. */
  current(what) {
    if (this.generation !== generation) {
      this.live().catch(() => {}); // started here; the caller's next read sees a failure
      throw new ResetError(
        `${what} is being opened again in a fresh instance of the WebAssembly module (its memory was given back, or it failed): try again once a read of it resolves`,
      );
    }
    return this.handle;
  }

  /** The handle in the current instance, made again there if the instance was replaced. */
  async live() {
    while (this.generation !== generation) {
      if (!this.reviving) {
        const target = generation;
        this.reviving = this.make()
          .then((handle) => {
            if (target !== generation) return; // replaced again meanwhile: made once more
            this.handle = handle;
            this.generation = target;
          })
          .finally(() => {
            this.reviving = null;
          });
      }
      await this.reviving;
    }
    return this.handle;
  }
}

// The handles behind nodes and Zarr Vectors stores, kept out of the objects so they show only
// their metadata. Handles are freed by a FinalizationRegistry (wasm-bindgen --weak-refs) once a
// node is collected.
const handles = new WeakMap();
// The objects alive with a handle, for reopening them all when the instance is replaced.
const alive = new Set();
const forget = new FinalizationRegistry((ref) => alive.delete(ref));

/** Gives `owner` the handle `revivable`, reopened with the instance from now on. */
function keep(owner, revivable) {
  const ref = new WeakRef(owner);
  handles.set(owner, { revivable, ref });
  alive.add(ref);
  forget.register(owner, ref, owner);
}

/** Forgets `owner`'s handle, freeing it now where it belongs to the current instance. */
function drop(owner) {
  const entry = handles.get(owner);
  if (!entry) return;
  if (entry.revivable.generation === generation) entry.revivable.handle.free();
  handles.delete(owner);
  alive.delete(entry.ref);
  forget.unregister(owner);
}

/**
 * Takes the attributes' text of the nodes alive whose `attrs` has not been read, from the
 * instance about to be replaced (it is whole: a build loaded beside it replaces it): `attrs` is
 * read synchronously, and the node's handle in the next instance is not made yet.
 */
function keepUnreadAttributes() {
  for (const ref of alive) {
    const owner = ref.deref();
    const revivable = owner && handles.get(owner)?.revivable;
    if (revivable?.generation !== generation || typeof revivable.handle.attrsText !== "function")
      continue;
    if (Object.getOwnPropertyDescriptor(owner, "attrs")?.get)
      lazyAttributes(owner, revivable.handle.attrsText());
  }
}

/** Starts reopening every object alive in the current instance (after it was replaced). */
function reviveAll() {
  for (const ref of alive) {
    const owner = ref.deref();
    if (owner)
      handles
        .get(owner)
        ?.revivable.live()
        .catch(() => {}); // its next call sees a failure
  }
}

class Node {
  /**
   * `where` names the node in messages (its store's URL or label, and its path); `info` is the
   * handle's, where the caller has it already.
   */
  constructor(wasm, where, reopen, info = wasm.info()) {
    keep(this, new Revivable(wasm, reopen, where));
    Object.assign(this, info);
    // The module's current handle when `attrs` is read (a replaced instance has another).
    lazyAttributes(this, () => handle(this).attrsText());
  }

  /** Releases the node's memory in the module now (see index.d.ts). */
  free() {
    // `attrs` not read yet: its text is taken now, while the module still has it.
    if (Object.getOwnPropertyDescriptor(this, "attrs")?.get && handles.has(this))
      lazyAttributes(this, handle(this).attrsText());
    drop(this);
    dropFromWorkers(this);
  }
}
if (Symbol.dispose) Node.prototype[Symbol.dispose] = Node.prototype.free;

/**
 * Defines `node.attrs` from the attributes' JSON text (or a function that asks the module for
 * it), parsed when it is first read and kept: a node whose attributes hold a million values opens
 * without building them, and a viewer that never reads them never pays for it.
 */
function lazyAttributes(node, text) {
  Object.defineProperty(node, "attrs", {
    configurable: true,
    enumerable: true,
    get() {
      const value = JSON.parse(typeof text === "function" ? text() : text);
      Object.defineProperty(node, "attrs", { value, enumerable: true, writable: true });
      return value;
    },
    set(value) {
      Object.defineProperty(node, "attrs", { value, enumerable: true, writable: true });
    },
  });
}

/** The entry of a node or store that has not been freed. */
function entryOf(owner) {
  const entry = handles.get(owner);
  if (!entry)
    throw new SelectionError(`the ${owner.kind ?? "node"} at "${owner.path ?? ""}" was freed`);
  return entry.revivable;
}

/** The wasm handle of a node, for a synchronous call (see Revivable.current). */
function handle(node) {
  return entryOf(node).current(`the ${node.kind} at "${node.path}"`);
}

/**
 * The wasm handle of a node in the current instance: the handle itself where it is current (so
 * that a call started before a free() uses it before the free()), else a promise of it, opened
 * again there. A freed node's is a rejected promise.
 */
function liveHandle(node) {
  try {
    const entry = entryOf(node);
    if (entry.pending) return entry.pending.then(() => liveHandle(node));
    return entry.generation === generation ? entry.handle : entry.live();
  } catch (err) {
    return Promise.reject(err);
  }
}

/** `f(handle)` with the node's live handle: at once where it is current. */
function withHandle(node, f) {
  const handle = liveHandle(node);
  return handle instanceof Promise ? handle.then(f) : f(handle);
}

/** Where a node is, for messages. */
function whereOf(node) {
  return handles.get(node)?.revivable.where ?? node.path;
}

/** A Zarr array. Reads resolve to `{ data, shape, stride }`, `data` a typed array in C order. */
export class ZarrArray extends Node {
  /**
   * The shard indexes a read of `selection` needs, fetched here for the worker that reads it
   * (`[[key, bytes | null]]`; none for an unsharded array): each shard's index is then fetched
   * once for the page, not once per worker.
   */
  #shardIndexes(selection, signal) {
    if (this.innerChunks === null || this.innerChunks === undefined) return Promise.resolve(null);
    return call(() => withHandle(this, (h) => h.shardIndexes(selection, signal ?? null)));
  }

  /** Reads a selection (see index.d.ts). */
  get(selection, options = {}) {
    try {
      options = checkCall(options, "get", schemas.GET, `reading ${whereOf(this)}`);
      if (options.bits && options.out)
        throw new TypeError("read options bits and out cannot be combined");
    } catch (err) {
      return Promise.reject(err);
    }
    if (readsInWorkers(this)) {
      return readInWorkers(
        this,
        liveHandle(this),
        selection ?? null,
        options,
        PARTS_PER_WORKER,
        (s, signal) => this.#shardIndexes(s, signal),
      );
    }
    const { signal, concurrency, onProgress, out, maxChunks, maxBytes, bits } = options;
    return startingAfter(
      this,
      call(() =>
        withHandle(this, (h) =>
          h.get(selection ?? null, {
            signal,
            concurrency,
            onProgress,
            out,
            maxChunks,
            maxBytes,
            bits,
          }),
        ),
      ),
    );
  }

  /** Reads a selection chunk by chunk, for viewers that draw each part as it arrives (see index.d.ts). */
  async *iterate(selection, options = {}) {
    options = checkCall(options, "iterate", schemas.ITERATE, `iterating ${whereOf(this)}`);
    const ahead_ = options.concurrency ?? 4;
    const node = await liveHandle(this);
    const regions = (() => {
      try {
        return node.chunkRegions(selection ?? null);
      } catch (err) {
        throw typed(err);
      }
    })();
    const stop = new AbortController();
    const abort = () => stop.abort();
    options.signal?.addEventListener("abort", abort);
    const read = (r) => {
      // With workers, each chunk is one worker's: its region is not split further.
      const part = readsInWorkers(this)
        ? readInWorkers(
            this,
            liveHandle(this),
            r.selection,
            { signal: stop.signal },
            0,
            (s, signal) => this.#shardIndexes(s, signal),
          )
        : this.get(r.selection, { signal: stop.signal });
      const p = part.then((part) => ({ coords: r.coords, origin: r.outStart, ...part }));
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
    try {
      options = checkCall(
        options,
        "getChunk",
        schemas.READ,
        `reading chunk ${showCoords(coords)} of ${whereOf(this)}`,
      );
    } catch (err) {
      return Promise.reject(err);
    }
    if (readsInWorkers(this))
      return readChunkInWorkers(this, liveHandle(this), coords, options.signal);
    return startingAfter(
      this,
      call(() => withHandle(this, (h) => h.getChunk(coords, options.signal ?? null))),
    );
  }

  /**
   * Whether the array's data type is `query`, or of the family `query` names ("number",
   * "bigint", "string", "boolean"): a type guard in TypeScript (see index.d.ts).
   */
  is(query) {
    return isOfType(this.dtype, query);
  }

  /** Sets a selection from a typed array or one value (see index.d.ts); loads the write build. */
  async set(selection, value, options = {}) {
    return (await writer()).set(this, selection, value, options);
  }

  /** Resizes the array (see index.d.ts): its shape changes in place. */
  async resize(shape) {
    return (await writer()).resize(this, shape);
  }

  /** Replaces the array's attributes (see index.d.ts). */
  async setAttributes(attributes) {
    return (await writer()).setAttributes(this, attributes);
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
  /** Replaces the group's attributes (see index.d.ts). */
  async setAttributes(attributes) {
    return (await writer()).setAttributes(this, attributes);
  }

  /** Opens the node at `path`, relative to this group. */
  async open(path, options = {}) {
    if (typeof path !== "string")
      throw new TypeError(`a group's open takes a path (a string), not ${show(path)}`);
    options = checkCall(options, "open", schemas.GROUP_OPEN, `opening ${whereOf(this)}/${path}`);
    // Resolves to [handle, documents read]; reopened from those documents (no request).
    const openIn = (known) => withHandle(this, (h) => h.open(path, known));
    // The documents JS asked for while the module loaded (a level of an OME-Zarr image), once,
    // and only soon after: a later opening reads the node as it is then.
    const entry = entryOf(this);
    const early = entry.earlyChildren?.get(path) ?? null;
    entry.earlyChildren?.delete(path);
    if (entry.earlyChildren?.size === 0) entry.earlyChildren = null;
    const [handle, read] = await unlessAborted(
      inFullBuildIfNeeded(async () => {
        const known = early && (await early);
        return call(() => openIn(known));
      }),
      options.signal,
    );
    const reopen = () => call(async () => (await openIn(read))[0]);
    const node = ofKind(wrap(handle, `${whereOf(this)}/${path}`, reopen), options.kind);
    shareWorkers(this, node, read);
    return node;
  }

  // A group has no data: what an array would read is refused with what to open instead (the
  // usual slip is opening an OME-Zarr image's root group rather than one of its levels).
  get() {
    return Promise.reject(notAnArray(this, "get"));
  }
  getChunk() {
    return Promise.reject(notAnArray(this, "getChunk"));
  }
  // biome-ignore lint/correctness/useYield: it throws before yielding anything
  async *iterate() {
    throw notAnArray(this, "iterate");
  }
}

/** The names of a group's children where it knows them: listed, or an OME-Zarr image's levels. */
function childNames(group) {
  if (group.children) return group.children.map((c) => c.name);
  return multiscalePaths(group.attrs)?.filter((p) => typeof p === "string") ?? null;
}

/** How to reach the arrays below `group`, for an error message. */
function childrenHint(group) {
  const names = childNames(group);
  if (names === null)
    return "its children are not listed (no consolidated metadata): open one by its path";
  if (names.length === 0) return "it has no children";
  const shown = names.slice(0, 20).map((n) => JSON.stringify(n));
  return `its children are ${shown.join(", ")}${names.length > 20 ? ` and ${names.length - 20} more` : ""}`;
}

/** The TypeError for reading from a group. */
function notAnArray(group, method) {
  return new TypeError(
    `${whereOf(group)} is a group, not an array, so it has no ${method}(): ${childrenHint(group)} (open(location, { path: "<child>" }) or group.open("<child>"))`,
  );
}

/** `node`, if it is of `kind` (or no kind was asked for); else it is freed and a NotFoundError thrown. */
function ofKind(node, kind) {
  if (kind === undefined || kind === null || node.kind === kind) return node;
  const hint = node.kind === "group" ? `: ${childrenHint(node)}` : "";
  const error = new NotFoundError(
    `no ${kind} at ${whereOf(node)}: it is ${node.kind === "array" ? "an array" : "a group"}${hint}`,
  );
  node.free();
  throw error;
}

/** Whether data type `dtype` is `query` or in the family it names (see ZarrArray.is). */
function isOfType(dtype, query) {
  switch (query) {
    case "number":
      return NUMBER_TYPES.test(dtype);
    case "bigint":
      return BIGINT_TYPES.test(dtype);
    case "string":
      return STRING_TYPES.test(dtype);
    case "boolean":
      return dtype === "bool";
    default:
      return dtype === query;
  }
}
// The families, by the values `get` returns: numbers in a typed array (one per element: complex
// types, interleaved, are not), BigInts, strings.
const NUMBER_TYPES =
  /^(u?int(8|16|32|4|2)|float(16|32|64)|bfloat16|float8_\w+|float6_\w+|float4_e2m1fn)$/;
const BIGINT_TYPES = /^(u?int64|datetime64\[.*\]|timedelta64\[.*\])$/;
const STRING_TYPES = /^(string|S\d+|U\d+)$/;

/** The node for `handle`; `reopen()` opens it again in a fresh instance of the module. */
function wrap(handle, where, reopen) {
  const info = handle.info();
  return info.kind === "array"
    ? new ZarrArray(handle, where, reopen, info)
    : new Group(handle, where, reopen, info);
}

/** Opens the array or group at `options.path` of a hierarchy, Zarr v3 or v2 (see index.d.ts). */
export function open(location, options = {}) {
  return openNode(location, options, null);
}

/**
 * Hands the shard indexes JS is fetching as `node` opens (`indexes`, from firstShardIndexes) to
 * it once they are in; its reads wait for them until then (they are usually in before the
 * module is), rather than ask for them again. Best effort: where the module does not take them,
 * the reads fetch them.
 */
function keepEarlyIndexes(node, indexes) {
  const entry = entryOf(node);
  entry.pending = indexes.then((kept) => {
    entry.pending = null;
    if (!kept || entry.generation !== generation) return;
    try {
      entry.handle.keepShardIndexes(kept);
    } catch {
      // Not kept: the reads fetch them.
    }
  });
}

/** Keeps shard indexes the main thread fetched for a worker's read (worker.js). */
export function __keepShardIndexes(node, indexes) {
  return withHandle(node, (h) => h.keepShardIndexes(indexes));
}

/**
 * `open` for a pool's worker: the node's documents as the main thread read them (see
 * `WasmStore.open` in src/bindings/mod.rs) answer the opening's reads of them.
 */
export function __openReplaying(location, options, documents) {
  return openNode(location, options, documents);
}

// How long after a group's opening its children's documents asked for early stand in for
// group.open's own requests.
const EARLY_CHILDREN_MS = 10000;

async function openNode(location, options, documents) {
  options = checkCall(options, "open", schemas.OPEN, `opening ${where(location, options?.path)}`);
  // Until the module is ready, the node's metadata is asked for from JS: its request overlaps the
  // module's download and compile instead of following them.
  const early = glue || documents ? null : firstDocuments(location, options);
  // And where it is an OME-Zarr image's group, its levels' documents as soon as its own are in
  // (while the module still loads): a viewer opens them next, through the group.
  const earlyChildren =
    options.kind === "array"
      ? null
      : early?.then((docs) => (glue ? null : childrenDocuments(location, options, docs)));
  // And, for a small sharded array, its shard indexes, once its zarr.json is in: the first reads
  // then go straight to the chunks.
  const earlyIndexes = early?.then((docs) => firstShardIndexes(location, options, docs));
  // A pool's workers start now, while the node opens: the reads that follow do not wait for them
  // (a failure to start is reported by the first read).
  // A ReferenceStore needs the full build: asked for before the workers start, so that they get
  // it too.
  const loaded = loadWasm(needsFullBuild(location) ? "full" : chosenKind());
  const pool = workerPool(options.workers, options.workerUrl);
  // A pool whose reads wait for its workers starts them now; one that reads on this thread
  // until they are ready starts them after the first view (offthread.js, startingAfter).
  if (pool && !pool.mainThreadWhileStarting) pool.start().catch(() => {});
  await loaded;
  const { zarrFormat, consolidated, chunkCacheSize, signal, limits } = options;
  const objects = new Map(); // the store objects workers read through this thread
  // Described now, so that a store workers cannot be sent is refused before anything is asked.
  if (pool) describeStore(location, objects);
  const nodeOptions = { zarrFormat, consolidated, chunkCacheSize, limits };
  // Resolves to [handle, documents read] (see WasmStore.open in src/bindings/mod.rs).
  const openIn = async (signal, known) => {
    const store = await openStore(location, signal);
    const from = known ? store.replaying(known) : store;
    try {
      return await from.open(options.path ?? "", nodeOptions, signal ?? null);
    } finally {
      if (from !== store) from.free();
      releaseStore(location, store);
    }
  };
  const known = documents ?? (await early);
  const [handle, read] = await inFullBuildIfNeeded(() => call(() => openIn(signal, known))).catch(
    (err) => {
      throw isForeignStore(location) && err instanceof NotFoundError
        ? new NotFoundError(
            `${err.message}. If the store is a zarrita.js store (its keys start with "/"), wrap it: open(zarritaStore(store)), with zarritaStore from "zarr-wasm/zarrita"`,
            { cause: err },
          )
        : err;
    },
  );
  // Opened again (a new instance) from the documents it was opened from: no request, and the
  // metadata the node's properties already show, whatever the store holds now.
  const reopen = () => call(async () => (await openIn(null, read))[0]);
  const node = ofKind(wrap(handle, where(location, options.path), reopen), options.kind);
  // After a write changes its metadata it is opened again from the store, not from `read`.
  handles.get(node).revivable.fromStore = reopenFromStore(
    location,
    options.path ?? "",
    nodeOptions,
  );
  if (earlyIndexes && node instanceof ZarrArray) keepEarlyIndexes(node, earlyIndexes);
  const children = await earlyChildren;
  if (children && node instanceof Group) {
    const entry = entryOf(node);
    entry.earlyChildren = children;
    // Let go of once their time is over, whether or not they were used.
    const timer = setTimeout(() => {
      if (entry.earlyChildren === children) entry.earlyChildren = null;
    }, EARLY_CHILDREN_MS);
    timer.unref?.(); // Node: no process is kept alive for it
  }
  // The workers open the node from what this thread read: no request of theirs for it; and its
  // store as opening it resolved it (described again: an Icechunk snapshot, a reference file).
  if (pool) readThrough(node, pool, describeStore(location, objects), nodeOptions, objects, read);
  return node;
}

// ---------------------------------------------------------------------------------------------
// Writing (see index.d.ts) is write.js's, imported at the first write with the write build it
// loads: a page that only reads downloads neither. It reaches this module's internals through
// `internals`, not by importing this file.

const internals = {
  errors: { AbortError, SelectionError, typed },
  // Named one by one: the namespace itself, passed as a value, would be an object built at run
  // time, and esbuild then splits its helper into a chunk every page fetches.
  checks: {
    boolean: schemas.boolean,
    func: schemas.func,
    integer: schemas.integer,
    object: schemas.object,
    oneOf: schemas.oneOf,
    shape: schemas.shape,
    show,
    signal: schemas.signal,
    string: schemas.string,
  },
  offthread: {
    PARTS_PER_WORKER,
    hasWorkers,
    inWorkers,
    readsInWorkers,
    refreshInWorkers,
    workersOf,
  },
  where,
  call,
  checkCall,
  loadWasm,
  withHandle,
  liveHandle,
  withStore,
  wrap,
  whereOf,
  reopenFromStore,
  fromStore,
  replaceHandle,
  reopensFromStore,
  lazyAttributes,
};

/** `f(store)` with `location`'s store opened in the current instance, released after. */
async function withStore(location, f) {
  const store = await openStore(location);
  try {
    return await f(store);
  } finally {
    releaseStore(location, store);
  }
}

/**
 * Opens the node at `path` of `location` again (in a fresh instance), from the store itself, with
 * the options it was opened with (its limits, its chunk cache).
 */
function reopenFromStore(location, path, nodeOptions = {}) {
  return () =>
    call(() =>
      withStore(location, async (store) => (await store.open(path, nodeOptions, null))[0]),
    );
}

/** A handle of `node` opened again from its store (its metadata changed). */
function fromStore(node) {
  return handles.get(node).revivable.fromStore();
}

let writeModule = null;

/** write.js, imported once (again after a failed import: the next write tries again). */
function writer() {
  writeModule ??= import("./write.js").then(
    (module) => {
      module.attach(internals);
      return module;
    },
    (err) => {
      writeModule = null;
      throw err;
    },
  );
  return writeModule;
}

/** Gives `node` the handle `next` (its metadata changed), reopened from the store from now on. */
function replaceHandle(node, next) {
  const entry = handles.get(node);
  const old = entry.revivable.handle;
  entry.revivable.handle = next;
  entry.revivable.generation = generation;
  entry.revivable.make = entry.revivable.fromStore;
  if (old !== next) old.free();
  Object.assign(node, next.info());
  lazyAttributes(node, () => handle(node).attrsText());
}

/**
 * Makes `node` open again from its store from now on (the documents it was opened from are
 * stale), with `reopen` where given, else as it was first opened from the store.
 */
function reopensFromStore(node, reopen) {
  const revivable = handles.get(node).revivable;
  if (reopen) revivable.fromStore = reopen;
  revivable.make = revivable.fromStore;
}

/** Creates an array in a store that can write (see index.d.ts). */
export async function create(location, options = {}) {
  return (await writer()).create(location, options);
}

/** Creates a group in a store that can write (see index.d.ts). */
export async function createGroup(location, options = {}) {
  return (await writer()).createGroup(location, options);
}

/** Erases the node at `path` and everything below it (see index.d.ts). */
export async function erase(location, path = "") {
  return (await writer()).erase(location, path);
}

/** Writes consolidated metadata for the hierarchy at `path` (see index.d.ts). */
export async function consolidate(location, path = "") {
  return (await writer()).consolidate(location, path);
}

/**
 * write.js, imported and given this file's internals (an internal hook of zarr-wasm/convert,
 * which calls its nodesBelow and copyRegion): one entry point for the converter's needs, so that
 * a page that only reads carries no wrapper for each.
 */
export function __writer() {
  return writer();
}

// ---------------------------------------------------------------------------------------------
// Decoders on their own, for pipelines of the caller's (zarr-wasm/zarrita registers them in
// zarrita.js's codec registry).

/** A bytes-to-bytes decoder built from a codec's v3 metadata (see index.d.ts). */
export async function bytesDecoder(codec, options = {}) {
  if (typeof codec?.name !== "string")
    throw new TypeError("bytesDecoder's codec must be a { name, configuration } object");
  options = checkOptions(options, "bytesDecoder", schemas.BYTES_DECODER);
  const json = JSON.stringify(codec);
  // The handle, and the instance it belongs to (a trap replaces the instance; a handle of the
  // old one is built again in the new one).
  const build = async () => {
    const built = { generation, handle: new glue.WasmBytesCodec(json, options.dataType ?? null) };
    if (built.handle.secondModule) {
      await loadExtra();
      glue.useSecondModule();
    }
    // What the codec adds to every chunk, where it fixes that (checksums), asked here so that
    // encodedSize never calls into an instance a trap may have replaced.
    built.added = built.handle.encodedSize(0);
    return built;
  };
  await loadWasm();
  let built = await inFullBuildIfNeeded(() => call(build));
  return {
    name: codec.name,
    encodedSize: (decodedSize) =>
      built.added === undefined ? undefined : decodedSize + built.added,
    decode(bytes, where = "a chunk") {
      // Bytes as they are, whatever view they come in.
      if (ArrayBuffer.isView(bytes))
        bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      else if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
      else
        throw new TypeError(
          "bytesDecoder's decode takes a Uint8Array, another view or an ArrayBuffer",
        );
      return call(async () => {
        if (built.generation !== generation) built = await build();
        // A trap while the second module loaded: this call is rejected already; the handle is
        // not called into.
        if (built.generation !== generation) return undefined;
        return built.handle.decode(bytes, options.maxBytes ?? 0, where);
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Zarr Vectors (ZVF): geometry chunked in space, as zarr-vectors 0.9 writes it.

/** Opens the Zarr Vectors store at `options.path` of `location` (see index.d.ts). */
export async function openVectors(location, options = {}) {
  options = checkCall(
    options,
    "openVectors",
    schemas.OPEN_VECTORS,
    `opening ${where(location, options?.path)}`,
  );
  await loadWasm("full");
  const openIn = async (signal) => {
    const store = await openStore(location, signal);
    try {
      return await store.vectors(options.path ?? "");
    } finally {
      releaseStore(location, store);
    }
  };
  const handle = await call(() => openIn(options.signal));
  return new Vectors(handle, where(location, options.path), () => call(() => openIn(null)));
}

class Vectors {
  constructor(handle, where, reopen) {
    keep(this, new Revivable(handle, reopen, where));
    this.#levels = new Map();
    Object.assign(this, handle.info());
  }
  #levels;

  /** Level `index` (0, the finest, by default): `{ dtype, chunks, readChunk, chunksIn, readObject }`. */
  level(index = 0) {
    if (!Number.isInteger(index) || index < 0)
      return Promise.reject(new SelectionError(`a level is a non-negative integer, not ${index}`));
    if (!this.#levels.has(index)) {
      const reopen = () => withHandle(this, (h) => h.level(index));
      const where = `level ${index} of ${whereOf(this)}`;
      const opening = call(reopen).then((h) => new VectorLevel(h, where, () => call(reopen)));
      opening.catch(() => this.#levels.delete(index));
      this.#levels.set(index, opening);
    }
    return this.#levels.get(index);
  }

  /** One spatial chunk (see index.d.ts). */
  async readChunk(chunk, options = {}) {
    options = checkOptions(options, "readChunk", schemas.VECTORS_READ);
    return (await this.level(options.level ?? 0)).readChunk(chunk, options.attributes);
  }

  /** The geometry of `level` in one read (see index.d.ts). */
  async select(query = {}) {
    const {
      bbox: box,
      level = 0,
      attributes,
      linkAttributes,
      objectIds = false,
    } = checkOptions(query, "select", schemas.VECTORS_SELECT);
    let bbox = box;
    if (bbox === null) bbox = undefined;
    if (bbox !== undefined && !(Array.isArray(bbox) && bbox.length === 2)) {
      throw new SelectionError(`bbox must be [min, max], not ${JSON.stringify(bbox)}`);
    }
    return (await this.level(level)).select({ bbox, attributes, linkAttributes, objectIds });
  }

  /** The links from `level` to `level + delta` among what `select` reads of each (see index.d.ts). */
  async crossLinks(query) {
    const { level = 0, delta, bbox: box } = checkOptions(query, "crossLinks", schemas.CROSS_LINKS);
    let bbox = box;
    if (bbox === null) bbox = undefined;
    if (bbox !== undefined && !(Array.isArray(bbox) && bbox.length === 2)) {
      throw new SelectionError(`bbox must be [min, max], not ${JSON.stringify(bbox)}`);
    }
    if (!Number.isInteger(delta) || delta === 0) {
      throw new SelectionError(
        `delta is a non-zero integer (+1: coarser, -1: finer), not ${delta}`,
      );
    }
    const [from, to] = await Promise.all([this.level(level), this.level(level + delta)]);
    // Both handles first (a level opened again after a reset), then one synchronous call.
    return call(async () => {
      const [f, t] = await Promise.all([liveHandle(from), liveHandle(to)]);
      return f.crossLinks(t, delta, bbox?.[0], bbox?.[1]);
    });
  }

  /** Object `id`'s vertices at `level`, in its manifest's order: `{ positions, attributes }`. */
  async readObject(id, options = {}) {
    options = checkOptions(options, "readObject", schemas.VECTORS_READ);
    return (await this.level(options.level ?? 0)).readObject(id, options.attributes);
  }

  /** Object attribute `name` at `level`: `{ values, shape }`, a row per object. */
  async objectAttribute(name, options = {}) {
    options = checkOptions(options, "objectAttribute", schemas.AT_LEVEL);
    return (await this.level(options.level ?? 0)).objectAttribute(name);
  }

  /** How many groups of objects `level` has. */
  async groupCount(options = {}) {
    options = checkOptions(options, "groupCount", schemas.AT_LEVEL);
    return (await this.level(options.level ?? 0)).groupCount();
  }

  /** The ids of the objects in group `id` (a Float64Array). */
  async readGroup(id, options = {}) {
    options = checkOptions(options, "readGroup", schemas.AT_LEVEL);
    return (await this.level(options.level ?? 0)).readGroup(id);
  }
}

class VectorLevel {
  constructor(handle, where, reopen) {
    keep(this, new Revivable(handle, reopen, where));
    Object.assign(this, handle.info());
  }
  readChunk(chunk, attributes = []) {
    return call(() => withHandle(this, (h) => h.readChunk(chunk, attributes)));
  }
  chunksIn(lo, hi) {
    try {
      return entryOf(this).current(whereOf(this)).chunksIn(lo, hi);
    } catch (err) {
      throw typed(err);
    }
  }
  readObject(id, attributes = []) {
    return call(() => withHandle(this, (h) => h.readObject(id, attributes)));
  }
  select({ bbox, attributes, linkAttributes, objectIds = false } = {}) {
    return call(() =>
      withHandle(this, (h) =>
        h.select(bbox?.[0], bbox?.[1], attributes, linkAttributes, Boolean(objectIds)),
      ),
    );
  }
  objectAttribute(name) {
    return call(() => withHandle(this, (h) => h.objectAttribute(String(name))));
  }
  groupCount() {
    return call(() => withHandle(this, (h) => h.groupCount()));
  }
  readGroup(id) {
    return call(() => withHandle(this, (h) => h.readGroup(id)));
  }
}
