// Writing (see index.d.ts): create, set, resize, attributes, erase, consolidate. index.js imports
// this file at the first write, and it loads the write build: a page that only reads downloads
// neither. This file imports nothing: what it needs of the others (index.js's handles and
// instances, the checks of options.js, the pool's plumbing) comes in one object, `attach`'s. A
// lazily imported file that imports files the page's own code imports makes bundlers split those
// into chunks of their own, and Parcel's workers then fail to find them (as with the glues,
// scripts/glue-imports.mjs).

/** index.js's internals (see `internals` there). */
let reader = null;
let schemas = null;
// What the other files share, as `attach` gives it (see `internals` in index.js).
let AbortError, SelectionError, typed, show, where;
let PARTS_PER_WORKER, hasWorkers, inWorkers, readsInWorkers, refreshInWorkers, workersOf;

/** Gives this file index.js's internals; index.js calls it once, as it imports this file. */
export function attach(internals) {
  reader = internals;
  schemas = schemasOf(internals.checks);
  ({ AbortError, SelectionError, typed } = internals.errors);
  ({ show } = internals.checks);
  ({ where } = internals);
  ({ PARTS_PER_WORKER, hasWorkers, inWorkers, readsInWorkers, refreshInWorkers, workersOf } =
    internals.offthread);
}

const count = (shape) => shape.reduce((a, b) => a * b, 1);

/** The options of create(), createGroup() and set(), from options.js's checks (`c`). */
function schemasOf(c) {
  /** Any JSON value (the module reads it). */
  const json = () => {};
  return {
    // The module checks what they make (src/hierarchy/write.rs).
    CREATE: {
      path: c.string,
      shape: c.shape,
      dtype: c.string,
      chunks: c.shape,
      shards: c.shape,
      indexLocation: c.oneOf("start", "end"),
      codecs: json,
      compressor: json,
      filters: json,
      fillValue: json,
      attributes: c.object,
      dimensionNames: json,
      zarrFormat: c.oneOf(2, 3),
      order: c.oneOf("C", "F"),
      dimensionSeparator: c.oneOf(".", "/"),
      chunkKeySeparator: c.oneOf(".", "/"),
      overwrite: c.boolean,
    },
    CREATE_GROUP: {
      path: c.string,
      attributes: c.object,
      zarrFormat: c.oneOf(2, 3),
      overwrite: c.boolean,
    },
    SET: {
      signal: c.signal,
      onProgress: c.func,
      writeEmptyChunks: c.boolean,
      concurrency: c.integer(1, 1024),
    },
  };
}

/** `arr.set` (see index.d.ts). */
export async function set(arr, selection, value, options) {
  const { call, checkCall, loadWasm, withHandle, whereOf, fromStore, replaceHandle } = reader;
  options = checkCall(options, "set", schemas.SET, `writing ${whereOf(arr)}`);
  await loadWasm("write");
  const { signal, onProgress, writeEmptyChunks, concurrency } = options;
  const write = { signal, onProgress, writeEmptyChunks, concurrency };
  const onMain = () => call(() => withHandle(arr, (h) => h.set(selection ?? null, value, write)));
  if (!hasWorkers(arr)) return onMain();
  // A node read through a pool writes through its workers, once one has started (see
  // writeThroughPool). After each write the node is opened again here and in the workers: what
  // they kept of it is stale.
  return withHandle(arr, (h) =>
    writeThroughPool(arr, h, selection ?? null, value, write, onMain, async () => {
      try {
        replaceHandle(arr, await fromStore(arr));
      } finally {
        refreshInWorkers(arr);
      }
    }),
  ).catch((err) => {
    throw typed(err);
  });
}

/** `arr.resize` (see index.d.ts): the array's shape changes in place. */
export async function resize(arr, newShape) {
  const { call, loadWasm, withHandle, replaceHandle } = reader;
  reader.checks.shape(newShape, "resize's shape");
  await loadWasm("write");
  const next = await call(() => withHandle(arr, (h) => h.resize(newShape)));
  replaceHandle(arr, next);
  refreshInWorkers(arr);
}

/** Replaces the attributes of `node` in its store, and as `node.attrs` shows them. */
export async function setAttributes(node, attributes) {
  const { call, loadWasm, withHandle, lazyAttributes, reopensFromStore } = reader;
  if (typeof attributes !== "object" || attributes === null || Array.isArray(attributes))
    throw new TypeError(`setAttributes takes an object, not ${show(attributes)}`);
  const text = jsonText(attributes);
  await loadWasm("write");
  await call(() => withHandle(node, (h) => h.setAttributes(JSON.parse(text))));
  lazyAttributes(node, text);
  // Reopened from the store from now on: the documents it was opened from are stale.
  reopensFromStore(node);
  refreshInWorkers(node);
}

/** Creates an array in a store that can write (see index.d.ts). */
export async function create(location, options) {
  const { call, checkCall, loadWasm, withStore } = reader;
  options = checkCall(
    options,
    "create",
    schemas.CREATE,
    `creating ${where(location, options?.path)}`,
  );
  for (const required of ["shape", "dtype", "chunks"])
    if (options[required] === undefined) throw new TypeError(`create's options need ${required}`);
  await loadWasm("write");
  const path = options.path ?? "";
  const made = await call(() => withStore(location, (store) => store.create(jsonText(options))));
  return wrapWritten(made, location, path);
}

/** Creates a group in a store that can write (see index.d.ts). */
export async function createGroup(location, options) {
  const { call, checkCall, loadWasm, withStore } = reader;
  options = checkCall(
    options,
    "createGroup",
    schemas.CREATE_GROUP,
    `creating ${where(location, options?.path)}`,
  );
  await loadWasm("write");
  const path = options.path ?? "";
  const attributes =
    options.attributes === undefined ? undefined : JSON.parse(jsonText(options.attributes));
  const made = await call(() =>
    withStore(location, (store) =>
      store.createGroup(path, attributes, options.zarrFormat, options.overwrite ?? false),
    ),
  );
  return wrapWritten(made, location, path);
}

/** The node for a handle just made by a write, reopened from its store in a fresh instance. */
function wrapWritten(made, location, path) {
  const reopen = reader.reopenFromStore(location, path);
  const node = reader.wrap(made, where(location, path), reopen);
  reader.reopensFromStore(node, reopen);
  return node;
}

/** Erases the node at `path` and everything below it (see index.d.ts). */
export async function erase(location, path) {
  if (typeof path !== "string")
    throw new TypeError(`erase's path must be a string, not ${show(path)}`);
  await reader.loadWasm("write");
  await reader.call(() => reader.withStore(location, (store) => store.erase(path)));
}

/** Writes consolidated metadata for the hierarchy at `path` (see index.d.ts). */
export async function consolidate(location, path) {
  if (typeof path !== "string")
    throw new TypeError(`consolidate's path must be a string, not ${show(path)}`);
  await reader.loadWasm("write");
  await reader.call(() => reader.withStore(location, (store) => store.consolidate(path)));
}

/**
 * The nodes below the group at `path`, found by listing the store: `[{ path, kind }]`, paths
 * relative to `path`, sorted (zarr-wasm/convert walks them, through `__writer` in index.js).
 */
export async function nodesBelow(location, path = "") {
  await reader.loadWasm("write");
  const text = await reader.call(() =>
    reader.withStore(location, (store) => store.nodesBelow(path)),
  );
  return JSON.parse(text);
}

/**
 * Sets `selection` of the array `to` to what the same selection of the array `from` holds
 * (zarr-wasm/convert's copy, through `__writer` in index.js): in the module, the values never
 * leaving it, where both arrays are read on this thread; through a read and a write where a
 * pool's workers read them.
 */
export async function copyRegion(from, to, selection, { signal }) {
  if (hasWorkers(from) || hasWorkers(to)) {
    const { data } = await from.get(selection, { signal });
    return to.set(selection, data, { signal });
  }
  const { call, loadWasm } = reader;
  await loadWasm("write");
  await call(() =>
    withBothHandles(from, to, (f, t) => t.copyFrom(f, selection ?? null, { signal })),
  );
}

/** `f(a's handle, b's handle)`, both of the current instance (see liveHandle in index.js). */
async function withBothHandles(a, b, f) {
  for (;;) {
    const [ha, hb] = [reader.liveHandle(a), reader.liveHandle(b)];
    if (!(ha instanceof Promise || hb instanceof Promise)) return f(ha, hb);
    await Promise.all([ha, hb]);
  }
}

/** JSON text of `value`, numbers JSON cannot hold as Zarr writes them ("NaN", "Infinity"). */
function jsonText(value) {
  return JSON.stringify(value, (_, v) => {
    if (typeof v === "number" && !Number.isFinite(v))
      return Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
    if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
    return v;
  });
}

// ---------------------------------------------------------------------------------------------
// Writes through a node's worker pool (pool.js, worker.js, offthread.js).

/**
 * Whether `node`'s writes go to its workers: its reads do, and its store is one the workers
 * write through the main thread (a store object with `set` and `delete`).
 */
export function writesInWorkers(node) {
  const workers = workersOf(node);
  return Boolean(workers && readsInWorkers(node) && workers.node.store.writes);
}

/**
 * `arr.set` of a node read through a pool. The selection is split into boxes of whole chunks (for
 * a sharded array, whole shards: no two workers write one), the value cut to match, each part
 * written by a worker; or, until a worker has started (or where the workers cannot write its
 * store, or the split would be too large), by `onMain` on this thread. Either way the write holds
 * the chunks it touches (writes of this node that meet wait for each other), and before it lets
 * them go `afterWrite` runs: the node opened again here and in the workers, whatever kept of it
 * being stale, even after a failure (some parts may have been written).
 */
export async function writeThroughPool(arr, handle, selection, value, options, onMain, afterWrite) {
  const { pool } = workersOf(arr);
  let plan = null;
  try {
    // Readers 0: the chunk grid's own boxes, never a shard's inner chunks. Bounded as a read is:
    // past that, the split (a list of chunks per dimension) is not made, and this thread writes.
    plan = handle.partition(selection, pool.size * PARTS_PER_WORKER, 0, {}, 0);
  } catch {}
  const release = await lockChunks(arr, plan && chunkBox(plan.selection, arr.chunks));
  try {
    if (plan === null || !writesInWorkers(arr)) return await onMain();
    const workers = workersOf(arr);
    await inWorkers(workers, () => writeParts(workers, plan, value, options, arr.dtype));
  } finally {
    try {
      await afterWrite();
    } finally {
      release();
    }
  }
}

/**
 * The chunks a resolved selection touches, as a box: [first, end) chunk coordinates per
 * dimension; null (every chunk) where the grid is not regular.
 */
function chunkBox(selection, chunks) {
  if (!chunks) return null;
  return selection.map((s, d) => {
    const [first, last] =
      typeof s === "number"
        ? [s, s]
        : [s.start, s.start + s.step * Math.floor((s.stop - 1 - s.start) / s.step)];
    return [Math.floor(first / chunks[d]), Math.floor(last / chunks[d]) + 1];
  });
}

const meets = (a, b) =>
  a === null || b === null || a.every(([s, e], d) => s < b[d][1] && b[d][0] < e);

// The writes through workers in flight, per node: the chunks each touches, and its end.
const writing = new WeakMap();

/** Waits until no write of `node` in flight touches `box`; resolves to the release of `box`. */
async function lockChunks(node, box) {
  const inFlight = writing.get(node) ?? new Set();
  writing.set(node, inFlight);
  for (;;) {
    const before = [...inFlight].filter((w) => meets(w.box, box));
    if (before.length === 0) break;
    await Promise.all(before.map((w) => w.done));
  }
  let release;
  const entry = { box, done: new Promise((resolve) => (release = resolve)) };
  inFlight.add(entry);
  return () => {
    inFlight.delete(entry);
    release();
  };
}

/** The parts of a write, each written by a worker. */
async function writeParts(workers, plan, value, options, dtype) {
  const { pool, node, label } = workers;
  const { signal, concurrency, onProgress, writeEmptyChunks } = options;
  const total = count(plan.shape);
  // One value per element, or one for them all: a byte string's one value is a Uint8Array.
  const values = Array.isArray(value) || (typedArray(value) && dtype !== "variable_length_bytes");
  // A value of the wrong length is refused before any part is written (each part would be
  // the right length for the wrong elements otherwise).
  if (values && (value.length < total || value.length % Math.max(total, 1) !== 0)) {
    throw new SelectionError(
      `the value has ${value.length} elements; the selection holds ${total} (writing ${label})`,
    );
  }
  const parts =
    plan.parts.length > 0
      ? plan.parts
      : [{ selection: plan.selection, outStart: plan.shape.map(() => 0), shape: plan.shape }];
  const done = parts.map(() => 0);
  const chunksTotal = parts.reduce((n, p) => n + (p.chunks ?? 0), 0);
  const stops = parts.map(() => new AbortController());
  const stopAll = (reason) => stops.forEach((s) => s.abort(reason));
  const abort = () => stopAll(signal.reason);
  signal?.addEventListener("abort", abort, { once: true });
  const runs = parts.map((part, i) => {
    // Each part's typed array is handed to its worker, not copied into the message: posting a
    // 32 MiB tile held the event loop for 60 to 150 ms (its structured clone); its copy here, a
    // part cut from the value or the value's copy, is one memcpy, into a buffer a worker gave
    // back where there is one (see `spareBuffers`). (A copy, as the caller's array stays theirs,
    // and is read now, as on this thread.)
    const partValue = !values
      ? value
      : typedArray(value)
        ? cut(value, plan.shape, part.shape, part.outStart, (like, n) => spareBuffers.view(like, n))
        : parts.length > 1
          ? cut(value, plan.shape, part.shape, part.outStart)
          : value;
    // Only the copies made here, never the caller's buffer.
    const transfer = typedArray(partValue) && partValue !== value ? [partValue.buffer] : [];
    const message = {
      type: "write",
      selection: part.selection,
      value: partValue,
      giveBack: transfer.length > 0,
      concurrency,
      writeEmptyChunks,
      progress: Boolean(onProgress),
    };
    const progress =
      onProgress &&
      ((p) => {
        done[i] = p.chunksDone;
        try {
          onProgress({ chunksDone: done.reduce((a, b) => a + b, 0), chunksTotal });
        } catch {}
      });
    // Settled when the worker has answered, aborted or not: its store calls are over then.
    return pool
      .run(node, message, {
        signal: stops[i].signal,
        onProgress: progress,
        label,
        untilAnswered: true,
        transfer,
      })
      .then((answer) => spareBuffers.keep(answer?.spare));
  });
  try {
    await Promise.all(runs);
  } catch (err) {
    // The other parts stop, and are waited for: the chunks they hold are theirs until then.
    stopAll("another part of the write failed");
    await Promise.allSettled(runs);
    throw signal?.aborted && !(err instanceof AbortError)
      ? new AbortError(err.message, { cause: err })
      : err;
  } finally {
    signal?.removeEventListener("abort", abort);
  }
}

/**
 * The built-in typed array class of `like`: a Node Buffer's is Uint8Array (`new Buffer(n)` is
 * deprecated, and Buffer's `slice` is a view, not a copy).
 */
function typedArrayClass(like) {
  const TypedArray = Object.getPrototypeOf(Uint8Array);
  let kind = like.constructor;
  while (kind && Object.getPrototypeOf(kind) !== TypedArray) kind = Object.getPrototypeOf(kind);
  return kind ?? like.constructor;
}

/** Whether `value` is a typed array (a view with its own `slice`, unlike a DataView). */
const typedArray = (value) => ArrayBuffer.isView(value) && !(value instanceof DataView);

/**
 * Buffers the workers gave back after writing a part, for the next parts' copies: a fresh 32 MiB
 * buffer costs its pages' first touch, which took 40 to 190 ms a tile pair here against 10 for a
 * copy into pages already touched. At most SPARE_BYTES are kept, for SPARE_MS after the last
 * was given back.
 */
const SPARE_BYTES = 256 << 20;
const SPARE_MS = 2000;
const spareBuffers = {
  buffers: [],
  timer: null,
  /** A typed array of `length` elements like `like`'s, on a spare buffer of its size if any. */
  view(like, length) {
    const bytes = length * like.BYTES_PER_ELEMENT;
    const fits = this.buffers.findIndex((b) => b.byteLength === bytes);
    const Kind = typedArrayClass(like);
    if (fits < 0) return new Kind(length);
    const [buffer] = this.buffers.splice(fits, 1);
    return new Kind(buffer, 0, length);
  },
  /** Keeps `buffer` (an ArrayBuffer, or nothing) while there is room. */
  keep(buffer) {
    if (!(buffer instanceof ArrayBuffer)) return;
    const held = this.buffers.reduce((n, b) => n + b.byteLength, 0);
    if (held + buffer.byteLength > SPARE_BYTES) return;
    this.buffers.push(buffer);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.buffers = [];
    }, SPARE_MS);
    this.timer.unref?.(); // Node: a kept buffer does not keep the process alive
  },
};

/**
 * The part of shape `partShape` at `origin` of `src` (of shape `srcShape`, C order): `place`'s
 * inverse, for a value written in parts. A typed array or an Array (strings, byte strings); an
 * element may span several entries (complex numbers). `make(src, length)` makes a typed array's
 * part.
 */
function cut(src, srcShape, partShape, origin, make = (like, n) => new (typedArrayClass(like))(n)) {
  const n = count(partShape);
  const per = src.length / count(srcShape);
  const out = ArrayBuffer.isView(src) ? make(src, n * per) : new Array(n * per);
  if (n === 0) return out;
  if (n === count(srcShape) && ArrayBuffer.isView(src)) {
    out.set(src.subarray(0, n * per)); // the whole value: one copy
    return out;
  }
  const nd = partShape.length;
  const row = (nd ? partShape[nd - 1] : 1) * per;
  const srcStrides = new Array(nd);
  for (let d = nd - 1, s = per; d >= 0; d--) {
    srcStrides[d] = s;
    s *= srcShape[d];
  }
  const index = new Array(Math.max(nd - 1, 0)).fill(0);
  const typed = ArrayBuffer.isView(src);
  for (let to = 0; to < out.length; to += row) {
    let from = nd ? origin[nd - 1] * per : 0;
    for (let d = 0; d < nd - 1; d++) from += (origin[d] + index[d]) * srcStrides[d];
    if (typed) out.set(src.subarray(from, from + row), to);
    else for (let k = 0; k < row; k++) out[to + k] = src[from + k];
    for (let d = nd - 2; d >= 0; d--) {
      if (++index[d] < partShape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}
