// A pool of workers that read for the main thread: Web Workers in browsers (and Deno), worker_threads
// in Node. Each worker runs its own instance of the module (worker.js) and opens the same nodes
// from the same stores; the main thread splits a read into boxes of whole chunks, hands them out,
// and puts the parts in place as they arrive. Fetching, decoding and assembling each part happen in
// a worker; the main thread only copies finished rows.
import { AbortError, SelectionError, WorkerError, errorFromData } from "./errors.js";
import { chosenKind, compiledModule, compiledNow } from "./load.js";

// Reads in flight per worker: some decoding while others' requests are under way, and for many
// small reads at once (a viewer's tiles) enough for their ranges to be merged. Measured with the
// viewer's tour (npm run bench; one worker on a 2-core machine, 20 ms per request): 2 left the
// worker waiting on round trips (1.8 s against 1.1 s with 8, on the 8192 x 8192 sample); on the
// larger sample, 8 still did (2.29 s; 1.39 s reading on the main thread with 24 tiles at once)
// and 24, the viewer's own tiles in flight, took 1.46 s.
const TASKS_PER_WORKER = 24;

// The worker script. Bundlers (webpack 5, Vite) see the `new Worker(new URL(...))` below and bundle
// it; in Node the file is started from beside this one.
const WORKER_FILE = "./worker.js";
// This file's URL apart: `new URL(WORKER_FILE, import.meta.url)` is one webpack would try to resolve.
const HERE = import.meta.url;

/** A started worker behind the same few calls in browsers and in Node. */
async function startWorker(url) {
  if (typeof globalThis.Worker === "function") {
    const worker = url
      ? new Worker(url, { type: "module", name: "zarr-wasm" })
      : new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: "zarr-wasm" });
    return {
      post: (message, transfer) => worker.postMessage(message, transfer ?? []),
      listen(onMessage, onFailure) {
        worker.onmessage = (event) => onMessage(event.data);
        worker.onerror = (event) => {
          event.preventDefault?.();
          onFailure(event.message || notStarted(url ?? new URL(WORKER_FILE, HERE).href));
        };
        worker.onmessageerror = () => onFailure("a message from the worker could not be read");
      },
      ref() {},
      unref() {},
      terminate: () => worker.terminate(),
    };
  }
  // A name in a variable: bundlers for the browser leave it alone (see index.js).
  const threads = "node:worker_threads";
  const { Worker: NodeWorker } = await import(/* webpackIgnore: true */ /* @vite-ignore */ threads);
  // Node takes file: URLs as URL objects only.
  const file =
    url === undefined ? new URL(WORKER_FILE, HERE) : /^file:/.test(url) ? new URL(url) : url;
  const worker = new NodeWorker(file);
  return {
    post: (message, transfer) => worker.postMessage(message, transfer ?? []),
    listen(onMessage, onFailure) {
      worker.on("message", onMessage);
      worker.on("error", (err) =>
        onFailure(
          // The script, or a module it imports, not found: say where it was looked for, and why.
          /MODULE_NOT_FOUND/.test(err?.code)
            ? `${err.message}: ${notStarted(String(file))}`
            : (err?.message ?? String(err)),
        ),
      );
      worker.on("messageerror", () => onFailure("a message from the worker could not be read"));
      worker.on("exit", (code) => onFailure(`the worker exited (code ${code})`));
    },
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    terminate: () => worker.terminate(),
  };
}

/**
 * Starts a worker of the pool `pool` (a WeakRef) whose ports are `crew`'s, with the worker script
 * at `url`; resolves to the worker. Apart from WorkerPool's methods on purpose: V8 keeps the
 * variables of a function that its closures use in one context shared by all of them, and a
 * method whose other closures use `this` would have the worker's listeners hold the pool, so
 * that a pool dropped without terminate() was never collected, nor its threads stopped.
 */
async function startOne(pool, crew, url) {
  const worker = { port: await startWorker(url), running: new Set(), opened: new Set() };
  // Ready once its module is instantiated (it says so: "ready"); ready() waits for that.
  worker.ready = false;
  worker.whenReady = new Promise((resolve, reject) => {
    worker.becameReady = resolve;
    worker.failedToStart = reject;
  });
  worker.whenReady.catch(() => {}); // a stopped pool's; ready() reports it
  crew.ports.add(worker.port);
  // The module this thread compiled, before any other message: one download and one
  // compile for the page. Where it cannot be had, the worker loads its own.
  const kind = chosenKind();
  // The worker imports the build's glue now, while this thread downloads and compiles the
  // module: had it waited for the module, the glue's download would follow it.
  worker.port.post({ type: "prepare", kind });
  const module = await compiledModule(kind).catch(() => null);
  if (module) {
    worker.port.post({ type: "module", module, kind });
    worker.kind = kind;
  }
  worker.port.listen(
    (message) => {
      // Held until it is ready (in Node, a worker held keeps the process alive: `await
      // pool.ready()` at a module's top level would otherwise have nothing to wait on, and the
      // process would exit with its await unsettled); idle from then on, unless reads wait.
      if (message?.type === "ready" && worker.running.size === 0) worker.port.unref();
      pool.deref()?.receive(worker, message);
    },
    (reason) => pool.deref()?.fail(worker, reason),
  );
  // Its module instantiated now (the one sent, or its own where none could be), not at its
  // first read; it answers "ready".
  worker.port.post({ type: "warm" });
  return worker;
}

/** Why a worker script that would not start did not, and what to do. */
function notStarted(url) {
  return `the worker script ${url} could not be loaded or run. A bundler that does not bundle workers (esbuild, Rollup) needs zarr-wasm/worker built as a second entry point named worker.js beside the bundle, or its URL given as open()'s workerUrl or WorkerPool's url: see the README's Bundlers section`;
}

/** Pools with calls in flight: held, so that a pool is never collected while a call waits on it. */
const busy = new Set();

/** Stops the workers of pools dropped without terminate(). */
const dropped = new FinalizationRegistry((crew) => {
  for (const port of crew.ports) port.terminate();
  crew.ports.clear();
});

/** How many cores the platform says it has (at least 1). */
function cores() {
  return Math.max(1, globalThis.navigator?.hardwareConcurrency ?? 1);
}

let nextId = 1;

/**
 * Workers that fetch and decode for the main thread. `open(location, { workers: pool })` reads
 * the node through them (or `{ workers: n }`, a pool of n shared by every open() that asks for
 * n). `size` defaults to the number of cores; `options.url` is the worker script's URL where a
 * bundler cannot find it (esbuild: build zarr-wasm/worker as a second entry point and pass its URL).
 */
// Reads with smaller results go to one worker whole (see WorkerPoolOptions.splitBytes).
const SPLIT_BYTES = 1 << 20;

export class WorkerPool {
  constructor(size = cores(), options = {}) {
    if (!Number.isInteger(size) || size < 1 || size > 256) {
      throw new RangeError(`a WorkerPool's size must be an integer from 1 to 256, not ${size}`);
    }
    this.size = size;
    this.url = options.url === undefined ? undefined : String(options.url);
    const { splitBytes = SPLIT_BYTES } = options;
    if (typeof splitBytes !== "number" || !(splitBytes >= 0)) {
      throw new RangeError(`WorkerPool option splitBytes must be a number >= 0, not ${splitBytes}`);
    }
    this.splitBytes = splitBytes;
    // Off by default: a worker script that cannot be loaded is then the first read's error, where
    // with it on the first reads succeed on the main thread and only later ones report it.
    const { mainThreadWhileStarting = false } = options;
    if (typeof mainThreadWhileStarting !== "boolean") {
      throw new TypeError(
        `WorkerPool option mainThreadWhileStarting must be a boolean, not ${typeof mainThreadWhileStarting}`,
      );
    }
    this.mainThreadWhileStarting = mainThreadWhileStarting;
    this.workers = null; // started on the first read
    this.queue = [];
    this.tasks = new Map(); // id -> task, queued or in flight
    this.storeObjects = new Map(); // store id -> { store, users }: stores workers read through the main thread
    this.terminated = false;
    // The started workers' ports, apart from the pool: when a pool is dropped without
    // terminate(), the registry stops them (nothing the workers hold keeps the pool alive).
    this.crew = { ports: new Set() };
    dropped.register(this, this.crew);
  }

  /** Stops every worker; reads in progress reject, and the pool cannot be used again. */
  terminate() {
    this.terminated = true;
    this.stopAll("the worker pool was terminated");
  }

  /** Forces a trap in each started worker's module after `ms` milliseconds (for tests). */
  __trapForTests(ms = 0) {
    this.started?.then((workers) => {
      for (const w of workers) w.port.post({ type: "trap", ms });
    });
  }

  /** Whether a worker has its module instantiated: reads go to the workers from then on. */
  get anyReady() {
    return this.workers?.some((w) => w.ready) ?? false;
  }

  /** Starts the workers, if they have not started; resolves once each has its module ready. */
  ready() {
    return this.start().then((workers) =>
      Promise.all(workers.map((w) => w.whenReady)).then(() => {}),
    );
  }

  /** Rejects every task with `reason` and stops the workers; the next read starts new ones. */
  stopAll(reason) {
    const tasks = [...this.tasks.values()];
    this.tasks.clear();
    busy.delete(this);
    this.queue.length = 0;
    for (const task of tasks) task.reject(new WorkerError(`${task.label}: ${reason}`));
    const started = this.started;
    this.started = null;
    this.workers = null;
    const crew = this.crew;
    started?.then(
      (workers) =>
        workers.forEach((w) => {
          w.failedToStart(new WorkerError(reason));
          crew.ports.delete(w.port);
          w.port.terminate();
        }),
      () => {},
    );
  }

  start() {
    if (this.started) return this.started;
    // The workers' listeners reach the pool through a WeakRef: a running worker is a root, and
    // a strong reference from it would keep a dropped pool, and its threads, for ever.
    const pool = new WeakRef(this);
    const { crew, url, size } = this;
    const starting = Array.from({ length: size }, () => startOne(pool, crew, url));
    const started = Promise.all(starting).then(
      (workers) => {
        if (this.started === started) this.workers = workers;
        this.startFailed = false;
        return workers;
      },
      async (err) => {
        this.startFailed = true;
        // The workers that did start are stopped with the rest.
        for (const w of await Promise.allSettled(starting))
          if (w.status === "fulfilled") w.value.port.terminate();
        throw err;
      },
    );
    this.started = started;
    return started;
  }

  /**
   * Runs `message` ({ type: "read" | "chunk", ... }) on the node `node` ({ id, store, path,
   * options }, as worker.js opens it) in the next free worker. `label` names the read in
   * messages; `onProgress` receives the worker's progress reports; `signal` stops waiting (and
   * tells the worker to stop). With `untilAnswered`, an aborted task handed to a worker settles
   * only when the worker answers (a write's part: its store calls stop there, not here).
   */
  run(
    node,
    message,
    { signal, onProgress, label = node.path, untilAnswered = false, transfer = [] } = {},
  ) {
    if (this.terminated)
      return Promise.reject(new WorkerError(`${label}: the worker pool was terminated`));
    if (signal?.aborted) return Promise.reject(aborted(signal, label));
    return new Promise((resolve, reject) => {
      const id = nextId++;
      const task = {
        id,
        node,
        label,
        message: { ...message, task: id, node: node.id },
        // Buffers the message hands over rather than copies (see writeParts in write.js).
        transfer,
        onProgress,
        worker: null,
      };
      const stop = () => {
        // The worker is told; its place is freed when it answers (it always does).
        if (task.worker) task.worker.port.post({ type: "abort", task: id });
        else if (this.tasks.delete(id) && this.tasks.size === 0) busy.delete(this);
        if (untilAnswered && task.worker) return;
        task.abandoned = true;
        reject(aborted(signal, label));
      };
      task.resolve = (value) => {
        signal?.removeEventListener("abort", stop);
        if (!task.abandoned) resolve(value);
      };
      task.reject = (err) => {
        signal?.removeEventListener("abort", stop);
        if (!task.abandoned) reject(err);
      };
      signal?.addEventListener("abort", stop, { once: true });
      this.tasks.set(id, task);
      busy.add(this);
      this.queue.push(task);
      this.start().then(
        () => this.pump(),
        (err) => this.fail(null, `workers could not be started: ${err?.message ?? err}`),
      );
    });
  }

  /** Hands queued tasks to workers with room, the least busy first. */
  pump() {
    if (!this.workers) return;
    const handed = new Map(); // worker -> the tasks it is given now
    while (this.queue.length) {
      const worker = this.workers.reduce((a, b) => (b.running.size < a.running.size ? b : a));
      if (worker.running.size >= TASKS_PER_WORKER) break;
      const task = this.queue.shift();
      if (!this.tasks.has(task.id)) continue; // aborted while queued
      task.worker = worker;
      if (worker.running.size === 0) worker.port.ref();
      worker.running.add(task.id);
      try {
        if (!worker.opened.has(task.node.id)) {
          sendBuild(worker);
          worker.port.post({ type: "open", node: task.node });
          worker.opened.add(task.node.id);
        }
      } catch (err) {
        this.unsendable(task, err);
        continue;
      }
      if (!handed.has(worker)) handed.set(worker, []);
      handed.get(worker).push(task);
    }
    for (const [worker, tasks] of handed) this.send(worker, tasks);
  }

  /**
   * Posts the messages of `tasks` to `worker` as one, so that it starts them in one turn: a
   * worker's reads, like the main thread's, merge the ranges of the reads started together, and
   * messages posted one by one may reach a busy worker in turns of their own.
   */
  send(worker, tasks) {
    if (tasks.length > 1) {
      try {
        worker.port.post(
          { type: "batch", messages: tasks.map((t) => t.message) },
          tasks.flatMap((t) => t.transfer),
        );
        return;
      } catch {
        // One of them cannot be sent: each on its own, which finds it.
      }
    }
    for (const task of tasks) {
      try {
        worker.port.post(task.message, task.transfer);
      } catch (err) {
        this.unsendable(task, err);
      }
    }
  }

  /** Fails a task whose message cannot be sent to a worker. */
  unsendable(task, err) {
    this.finish(task);
    task.reject(
      new SelectionError(`${task.label}: cannot be sent to a worker (${err?.message ?? err})`),
    );
  }

  /** Forgets a task, freeing its worker's place. */
  finish(task) {
    this.tasks.delete(task.id);
    if (this.tasks.size === 0) busy.delete(this);
    const worker = task.worker;
    if (worker?.running.delete(task.id) && worker.running.size === 0) worker.port.unref();
    this.pump();
  }

  receive(worker, message) {
    if (message.type === "store") return this.serveStore(worker, message);
    if (message.type === "ready") {
      worker.ready = true;
      worker.becameReady();
      return;
    }
    const task = this.tasks.get(message.task);
    if (!task) return;
    if (message.type === "progress") {
      if (!task.abandoned) task.onProgress?.(message.progress);
      return;
    }
    this.finish(task);
    if (message.type === "result") task.resolve(message.value);
    else task.reject(errorFromData(message.error, task.label));
  }

  /**
   * A worker failed as a whole (it could not start, crashed, or sent what cannot be read): every
   * read in progress rejects, and the workers are replaced on the next read.
   */
  fail(worker, reason) {
    if (worker && this.workers && !this.workers.includes(worker)) return; // a stopped worker's last words
    this.stopAll(`a zarr-wasm worker failed: ${reason}`);
  }

  /** Lets workers read `store` (id `id`) through the main thread, until released. */
  shareStore(id, store) {
    const entry = this.storeObjects.get(id) ?? { store, users: 0 };
    entry.users++;
    this.storeObjects.set(id, entry);
  }

  /** Tells the workers that have opened `nodeId` to drop it; `storeIds` are its shared stores. */
  release(nodeId, storeIds = []) {
    for (const worker of this.workers ?? []) {
      if (worker.opened.delete(nodeId)) worker.port.post({ type: "free", node: nodeId });
    }
    for (const id of storeIds) {
      const entry = this.storeObjects.get(id);
      if (entry && --entry.users === 0) this.storeObjects.delete(id);
    }
  }

  /**
   * A worker's request to a store that lives on the main thread: bytes of a key (or a range),
   * or a write (`op` "set" with `value`, or "delete") by a node written through the pool.
   */
  async serveStore(worker, { request, store, key, range, op, value: written }) {
    try {
      const object = this.storeObjects.get(store)?.store;
      if (!object) throw new Error(`the store was released`);
      if (op === "set" || op === "delete") {
        await (op === "set" ? object.set(key, written, {}) : object.delete(key, {}));
        worker.port.post({ type: "store-reply", request });
        return;
      }
      const value = range ? await object.getRange(key, range, {}) : await object.get(key, {});
      let bytes;
      // A copy, made with the Uint8Array constructor: the store keeps its own bytes, and a Node
      // Buffer's slice() would be a view of a buffer shared with others, not a copy.
      if (value instanceof Uint8Array) bytes = new Uint8Array(value);
      else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value.slice(0));
      else if (value !== undefined && value !== null) {
        throw new TypeError(
          `the store returned ${Object.prototype.toString.call(value)}, not a Uint8Array, an ArrayBuffer or undefined`,
        );
      }
      worker.port.post({ type: "store-reply", request, value: bytes }, bytes ? [bytes.buffer] : []);
    } catch (err) {
      worker.port.post({
        type: "store-reply",
        request,
        error: { name: err?.name, message: err?.message ?? String(err), status: err?.status },
      });
    }
  }
}

function aborted(signal, label) {
  return new AbortError(`reading ${label} was aborted (${signal?.reason ?? "no reason given"})`);
}

// ---------------------------------------------------------------------------------------------
// Putting parts together. A part's data is a typed array, an Array (strings), or for records an
// object of fields, each of those; an element may span several entries (complex numbers, fields
// with a subarray shape), counted as the data's length over the part's element count.

/** The number of elements of `shape`. */
export const count = (shape) => shape.reduce((a, b) => a * b, 1);

/**
 * Sends `worker` the build the page uses now, if it was given another: the page moved to the full
 * build after the worker started (an array needed one of its codecs), and the worker's nodes
 * are to open in the same build as the page's.
 */
function sendBuild(worker) {
  const kind = chosenKind();
  const module = worker.kind === kind ? null : compiledNow(kind);
  if (!module) return;
  worker.port.post({ type: "module", module, kind });
  worker.kind = kind;
}

/** Empty data for `total` elements, of the same kind as `sample` (which holds `sampleCount`). */
export function allocateLike(sample, sampleCount, total) {
  if (ArrayBuffer.isView(sample))
    return new sample.constructor((sample.length / sampleCount) * total);
  if (Array.isArray(sample)) return new Array((sample.length / sampleCount) * total);
  const record = {};
  for (const [name, field] of Object.entries(sample)) {
    Object.defineProperty(record, name, {
      value: allocateLike(field, sampleCount, total),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return record;
}

/**
 * Copies `src` (a part of shape `srcShape`) into `dst` (shape `dstShape`) at `origin`. The core's
 * `copy_box` does this inside wasm memory; here both sides are JS memory (typed arrays a worker
 * transferred, or plain arrays of strings and items), and going through the core would copy the
 * whole result into wasm memory and back for every part.
 */
export function place(dst, dstShape, src, srcShape, origin) {
  const n = count(srcShape);
  if (n === 0) return;
  if (!ArrayBuffer.isView(src) && !Array.isArray(src)) {
    for (const name of Object.keys(src)) place(dst[name], dstShape, src[name], srcShape, origin);
    return;
  }
  const per = src.length / n; // entries per element
  const nd = srcShape.length;
  const row = (nd ? srcShape[nd - 1] : 1) * per;
  const dstStrides = new Array(nd);
  for (let d = nd - 1, s = per; d >= 0; d--) {
    dstStrides[d] = s;
    s *= dstShape[d];
  }
  const index = new Array(Math.max(nd - 1, 0)).fill(0);
  const typed = ArrayBuffer.isView(src);
  for (let from = 0; from < src.length; from += row) {
    let to = nd ? origin[nd - 1] * per : 0;
    for (let d = 0; d < nd - 1; d++) to += (origin[d] + index[d]) * dstStrides[d];
    if (typed) dst.set(src.subarray(from, from + row), to);
    else for (let k = 0; k < row; k++) dst[to + k] = src[from + k];
    for (let d = nd - 2; d >= 0; d--) {
      if (++index[d] < srcShape[d]) break;
      index[d] = 0;
    }
  }
}

/** The buffers of a result's typed arrays, to transfer rather than copy. */
export function buffersOf(data, into = new Set()) {
  if (ArrayBuffer.isView(data)) into.add(data.buffer);
  else if (data && typeof data === "object" && !Array.isArray(data)) {
    for (const field of Object.values(data)) buffersOf(field, into);
  }
  return into;
}
