// Reading through a worker pool (pool.js, worker.js). A node is opened on the main thread too:
// its metadata answers questions at once, and it splits each read into parts for the workers.
// index.js asks here whether a node's reads go to workers (`readsInWorkers`) and hands them over.

import { AbortError, UnsupportedError, typed } from "./errors.js";
import { WorkerPool, allocateLike, count, place } from "./pool.js";
import {
  FetchStore,
  IcechunkStore,
  ReferenceStore,
  ZipStore,
  atSnapshot,
  label,
  resolved,
} from "./stores.js";

// Parts a read is split into per worker: enough that a worker finishing early takes another.
export const PARTS_PER_WORKER = 4;

// The pool and the workers' description of each node read through one.
const pooled = new WeakMap();
// Workers drop a node once it is garbage-collected here (or freed).
// (A node with reads in flight is still referenced by them, so it is not collected before they end.)
const released = new FinalizationRegistry(releaseInWorkers);
// Shared pools for `workers: n`, one per size and worker script.
const sharedPools = new Map();

/**
 * The pool open()'s `workers` option names: that WorkerPool, or for a number n the pool of n
 * shared by every open() that asks for n workers of the same script (`workerUrl`, default the
 * package's worker.js). Null for none.
 */
export function workerPool(workers, workerUrl) {
  if (workers === undefined || workers === null || workers === 0 || workers === false) return null;
  if (workers instanceof WorkerPool) {
    if (workerUrl !== undefined && workerUrl !== null)
      throw new TypeError(
        "open option workerUrl is for `workers: n`; a WorkerPool is given its worker's URL when it is made: new WorkerPool(n, { url })",
      );
    return workers;
  }
  if (typeof workers !== "number")
    throw new TypeError(
      `open option workers must be a WorkerPool or an integer from 1 to 256, not ${typeof workers}`,
    );
  if (!Number.isInteger(workers) || workers < 1 || workers > 256) {
    throw new RangeError(
      `open option workers must be a WorkerPool or an integer from 1 to 256, not ${workers}`,
    );
  }
  const url = workerUrl === undefined || workerUrl === null ? undefined : String(workerUrl);
  const key = `${workers} ${url ?? ""}`;
  if (!sharedPools.has(key) || sharedPools.get(key).terminated)
    sharedPools.set(key, new WorkerPool(workers, { url }));
  return sharedPools.get(key);
}

/**
 * Makes `node` read through `pool`; `store` describes its store to a worker, `documents` are what
 * opening the node read (the workers open it from them).
 */
export function readThrough(node, pool, store, options, objects = new Map(), documents = null) {
  const id = nextNodeId++;
  const desc = { id, store, path: node.path, options, documents };
  const stores = proxiedStores(store);
  // Store objects come with a new description, or are the pool's already (a group's children).
  for (const storeId of stores)
    pool.shareStore(storeId, objects.get(storeId) ?? pool.storeObjects.get(storeId)?.store);
  const workers = {
    pool,
    node: desc,
    stores,
    label: `${storeLabel(store)} ${node.path}`,
    reads: 0,
    freed: false,
  };
  pooled.set(node, workers);
  released.register(node, workers, node);
}

/**
 * Whether `node`'s reads go to its workers now: once one of them has its module instantiated.
 * Until then they are read on this thread, as without workers, so that the workers' start (their
 * code downloaded, the module instantiated in each) never delays a page's first view; a pool made
 * with `mainThreadWhileStarting: false` has its reads wait for it instead.
 */
export function readsInWorkers(node) {
  const workers = pooled.get(node);
  if (!workers) return false;
  const { pool } = workers;
  // A pool that could not start its workers, or was terminated, says so through the read.
  return pool.anyReady || !pool.mainThreadWhileStarting || pool.startFailed || pool.terminated;
}

// Per pool whose workers are still starting: the reads of its first view on this thread still in
// flight, and whether one of them has settled (startingAfter).
const firstView = new WeakMap();

/**
 * `read`, a read of `node` on this thread: if `node` has workers, they start once the first view
 * has settled (unless they have: `start()` is once), the first view being the reads asked for
 * before the first of them settled (a viewer asks for all its first tiles at once). Not before:
 * each worker downloads its code and instantiates the module, which would compete with those
 * reads for the network and the cores; the reads asked for meanwhile are read here. Reads asked
 * for later do not hold the workers back: one of them done starts them too, so that a read of the
 * first view that hangs does not keep a viewer reading on this thread. Again after a worker
 * failed, too.
 */
export function startingAfter(node, read) {
  const workers = pooled.get(node);
  if (workers) {
    const { pool } = workers;
    let view = firstView.get(pool);
    if (!view || (view.settled && view.inFlight === 0)) {
      view = { inFlight: 0, settled: false };
      firstView.set(pool, view);
    }
    const counted = !view.settled;
    if (counted) view.inFlight++;
    const settled = () => {
      view.settled = true;
      if (counted) view.inFlight--;
      // The first view read, or a later read done while one of the first view's still waits.
      if ((view.inFlight === 0 || !counted) && !pool.terminated) pool.start().catch(() => {});
    };
    read.then(settled, settled);
  }
  return read;
}

/**
 * Makes `child`, opened through `group`, read through the same workers, if the group does; its
 * `documents` (what opening it read) open it in the workers.
 */
export function shareWorkers(group, child, documents = null) {
  const workers = pooled.get(group);
  if (workers) {
    const { pool, node } = workers;
    readThrough(child, pool, node.store, node.options, undefined, documents);
  }
}

/**
 * After a write through `node`: the workers open it afresh, from its store (its metadata may have
 * changed), keeping nothing of what they held of it (decoded chunks, shard indexes). Reads
 * already started finish on the old opening.
 */
export function refreshInWorkers(node) {
  const old = pooled.get(node);
  if (!old) return;
  released.unregister(node);
  // Registered anew first, so that the stores both share stay shared across the change.
  readThrough(node, old.pool, old.node.store, old.node.options);
  old.freed = true;
  if (old.reads === 0) releaseInWorkers(old);
}

/** A freed node: the workers drop it once the reads already started have finished. */
export function dropFromWorkers(node) {
  const workers = pooled.get(node);
  if (!workers) return;
  pooled.delete(node);
  released.unregister(node);
  workers.freed = true;
  if (workers.reads === 0) releaseInWorkers(workers);
}

/** `arr.getChunk` through the workers. */
export function readChunkInWorkers(arr, arrHandle, coords, signal) {
  const workers = pooled.get(arr);
  if (arrHandle instanceof Promise) arrHandle.catch(() => {}); // awaited below, unless the read fails first
  return inWorkers(workers, async () => {
    try {
      const handle = arrHandle instanceof Promise ? await arrHandle : arrHandle;
      handle.chunkExtent(coords); // coordinates checked here, before a worker is asked
    } catch (err) {
      throw typed(err);
    }
    return workers.pool.run(
      workers.node,
      { type: "chunk", coords: [...coords] },
      { signal, label: workers.label },
    );
  });
}

/** Drops a node from the workers (freed, or garbage-collected). */
function releaseInWorkers(workers) {
  workers.pool.release(workers.node.id, workers.stores);
}

/** Runs `read` (a promise-returning call) counting it among the node's reads in flight. */
export async function inWorkers(workers, read) {
  workers.reads++;
  try {
    return await read();
  } finally {
    if (--workers.reads === 0 && workers.freed) releaseInWorkers(workers);
  }
}

let nextNodeId = 1;
const storeIds = new WeakMap(); // store object -> id
const urlStoreIds = new Map(); // URL -> id

function idOf(location) {
  if (typeof location === "string" || location instanceof URL) {
    const url = String(location);
    if (!urlStoreIds.has(url)) urlStoreIds.set(url, nextNodeId++);
    return urlStoreIds.get(url);
  }
  if (!storeIds.has(location)) storeIds.set(location, nextNodeId++);
  return storeIds.get(location);
}

/**
 * What a worker needs to open the same store: a URL and options, a ZIP archive's source and key,
 * or, for a store object (MemoryStore, FileSystemStore, your own), a stand-in that asks the main
 * thread for bytes.
 */
export function describeStore(location, objects) {
  const id = idOf(location);
  if (typeof location === "string" || location instanceof URL)
    return { id, kind: "fetch", url: String(location), options: {} };
  if (location instanceof FetchStore) {
    const options = sendableOptions(location.options, `FetchStore ${location.url}`);
    return { id, kind: "fetch", url: location.url, options };
  }
  if (location instanceof ReferenceStore) {
    // Each worker parses the reference file (or a Parquet directory's .zmetadata) this thread
    // read (a Blob: sent without a copy), or the object. Where none was kept, it reads the
    // source itself.
    const options = sendableOptions(location.options, `ReferenceStore ${label(location)}`);
    const source = location.url ?? location.references;
    return { id, kind: "reference", source, options, document: resolved.get(location) };
  }
  if (location instanceof IcechunkStore) {
    // Each worker reads the snapshot this thread found, not the branch or tag again (a commit
    // meanwhile would have its reads of another version than this thread's).
    const pin = resolved.get(location);
    const given = pin ? atSnapshot(location.options, pin.snapshot) : location.options;
    const options = sendableOptions(given, `IcechunkStore ${location.url}`);
    return { id, kind: "icechunk", url: location.url, options };
  }
  if (location instanceof ZipStore) {
    return {
      id,
      kind: "zip",
      source: describeStore(location.source, objects),
      key: location.key,
      options: { ...location.options },
    };
  }
  objects.set(id, location);
  return {
    id,
    kind: "main",
    hasRange: typeof location.getRange === "function",
    writes: typeof location.set === "function" && typeof location.delete === "function",
    label: label(location),
    cacheSize: location.cacheSize,
  };
}

/**
 * A FetchStore's (or ReferenceStore's) options as a worker can be sent them: headers as a plain
 * object; a `fetch` function, or anything else a worker cannot be sent, refused with an
 * UnsupportedError naming `what`.
 */
function sendableOptions(given, what) {
  const { fetch, headers, ...rest } = given ?? {};
  if (fetch !== undefined) {
    throw new UnsupportedError(
      `${what}: a fetch function cannot be sent to workers; open it without workers, or without the fetch option`,
    );
  }
  const options = { ...rest };
  if (headers !== undefined) options.headers = Object.fromEntries(new Headers(headers));
  try {
    structuredClone(options);
  } catch (err) {
    throw new UnsupportedError(`${what}: its options cannot be sent to workers (${err.message})`);
  }
  return options;
}

/** A store description's name in messages. */
function storeLabel(desc) {
  if (desc.kind === "zip") return `${storeLabel(desc.source)}#${desc.key}`;
  if (desc.kind === "reference")
    return typeof desc.source === "string" ? desc.source : "ReferenceStore:";
  return desc.kind === "fetch" || desc.kind === "icechunk" ? desc.url : desc.label;
}

/** The ids of the store objects a store description reads through the main thread. */
function proxiedStores(desc) {
  if (desc.kind === "main") return [desc.id];
  return desc.kind === "zip" ? proxiedStores(desc.source) : [];
}

/** Whether `node` is read through a pool (whether or not its workers have started). */
export function hasWorkers(node) {
  return pooled.has(node);
}

/** The pool and the workers' description of `node`, read through one (undefined if not). */
export function workersOf(node) {
  return pooled.get(node);
}

/**
 * `arr.get` through the workers: the selection split into at most `maxParts` boxes of whole
 * chunks, each read by a worker and put in place here as it arrives.
 */
export async function readInWorkers(arr, arrHandle, selection, options, partsPerWorker, indexesOf) {
  // Counted among the node's reads at once: a free() from now on waits for this read.
  const workers = pooled.get(arr);
  if (arrHandle instanceof Promise) arrHandle.catch(() => {}); // awaited below, unless the read fails first
  return inWorkers(workers, () =>
    readSplit(workers, arrHandle, selection, options, partsPerWorker, indexesOf),
  );
}

/**
 * A read split into parts for the workers; `arrHandle` resolves to the node's wasm handle,
 * `indexesOf(selection, signal)` to the shard indexes a part needs (handed to its worker).
 */
async function readSplit(workers, arrHandle, selection, options, partsPerWorker, indexesOf) {
  const { pool, node, label } = workers;
  const { signal, concurrency, onProgress: given, out, bits } = options;
  // The option types were checked by the caller (index.js's checkCall), the values are the
  // core's to check (partition here, the read in the worker).
  // What the callback throws is its own business: the read goes on (as on the main thread).
  const onProgress =
    given &&
    ((p) => {
      try {
        given(p);
      } catch {}
    });
  if (signal?.aborted) throw new AbortError(`reading ${label} was aborted before it started`);
  let plan;
  try {
    // At once where the handle is current: a free() after this read started must not come first.
    const handle = arrHandle instanceof Promise ? await arrHandle : arrHandle;
    plan = handle.partition(
      selection,
      pool.size * partsPerWorker,
      pool.size,
      { maxChunks: options.maxChunks, maxBytes: options.maxBytes },
      pool.splitBytes,
    );
  } catch (err) {
    throw typed(err);
  }
  // One part: the whole selection (resolved), and the worker's result as it is.
  const parts =
    plan.parts.length > 1
      ? plan.parts
      : [
          {
            selection: plan.selection,
            outStart: plan.shape.map(() => 0),
            shape: plan.shape,
            chunks: 0,
          },
        ];
  const chunksTotal = parts.reduce((n, p) => n + p.chunks, 0);
  const done = parts.map(() => 0);
  const bytes = parts.map(() => 0);
  const requests = parts.map(() => 0);
  const report = () => {
    const sum = (xs) => xs.reduce((a, b) => a + b, 0);
    onProgress({
      chunksDone: sum(done),
      chunksTotal,
      bytesFetched: sum(bytes),
      requests: sum(requests),
    });
  };
  const counts = { done, bytes, requests };
  return readParts({
    pool,
    node,
    label,
    plan,
    parts,
    signal,
    concurrency,
    onProgress,
    out,
    bits,
    counts,
    report,
    indexesOf,
  });
}

/** The parts of a split read, each by a worker, put in place as they arrive. */
async function readParts({
  pool,
  node,
  label,
  plan,
  parts,
  signal,
  concurrency,
  onProgress,
  out,
  bits,
  counts,
  report,
  indexesOf,
}) {
  const { done, bytes, requests } = counts;
  // A signal per part (one listener each; Node warns past ten on one signal), all aborted when the
  // caller's signal is, or when one part fails.
  const stops = parts.map(() => new AbortController());
  const stopAll = (reason) => stops.forEach((s) => s.abort(reason));
  const abort = () => stopAll(signal.reason);
  signal?.addEventListener("abort", abort, { once: true });
  let result = null;
  try {
    await Promise.all(
      parts.map(async (part, i) => {
        const progress =
          onProgress &&
          (parts.length === 1
            ? onProgress
            : (p) => {
                done[i] = Math.floor((part.chunks * p.chunksDone) / Math.max(p.chunksTotal, 1));
                bytes[i] = p.bytesFetched;
                requests[i] = p.requests;
                report();
              });
        // Fetched here, once for the page: two workers reading parts of one shard would each
        // fetch its index.
        const indexes = (await indexesOf?.(part.selection, stops[i].signal)) ?? undefined;
        const message = {
          type: "read",
          selection: part.selection,
          concurrency,
          progress: Boolean(onProgress),
          bits: Boolean(bits),
          indexes,
        };
        const value = await pool.run(node, message, {
          signal: stops[i].signal,
          onProgress: progress,
          label,
        });
        if (parts.length === 1 && !out) {
          result = value;
          return;
        }
        result ??= {
          data: outFor(out, value.data, count(part.shape), count(plan.shape)),
          shape: plan.shape,
          stride: plan.stride,
        };
        place(result.data, plan.shape, value.data, part.shape, part.outStart);
        if (onProgress && parts.length > 1 && done[i] !== part.chunks) {
          done[i] = part.chunks;
          report();
        }
      }),
    );
  } catch (err) {
    stopAll("another part of the read failed");
    throw signal?.aborted && !(err instanceof AbortError)
      ? new AbortError(err.message, { cause: err })
      : err;
  } finally {
    signal?.removeEventListener("abort", abort);
  }
  return result;
}

/** Where a read's parts go: the caller's `out` (checked against a part), or new memory. */
function outFor(out, sample, sampleCount, total) {
  if (out === undefined || out === null) return allocateLike(sample, sampleCount, total);
  if (!ArrayBuffer.isView(sample))
    throw new TypeError("read option out is for numeric results, not strings or records");
  const length = (sample.length / Math.max(sampleCount, 1)) * total;
  // The wrong kind of array is a TypeError, the right kind of the wrong length a RangeError (as
  // on the main thread: src/bindings/typed.rs).
  const expected = `read option out must be a ${sample.constructor.name} of length ${length}`;
  if (!(out instanceof sample.constructor)) throw new TypeError(expected);
  if (out.length !== length) throw new RangeError(`${expected}, not ${out.length}`);
  return out;
}
