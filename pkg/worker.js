// The worker of a WorkerPool (pool.js): its own instance of the module, opening the nodes the main
// thread names and reading the parts it is given. Results go back with their buffers transferred,
// not copied.
import {
  __keepShardIndexes,
  __openReplaying,
  FetchStore,
  IcechunkStore,
  ReferenceStore,
  ZipStore,
  __trapForTests,
  preload,
} from "./index.js";
import { errorToData } from "./errors.js";
import { buffersOf } from "./pool.js";
import { glueOf, useCompiledModule } from "./load.js";
import { resolved } from "./stores.js";

// No top-level await: a bundler may build this file as a classic script (Vite's default worker
// format, "iife"), where there is none. In Node, `parentPort` comes from a dynamic import; the
// messages sent before its listener is attached wait in the port's queue.
const port = (() => {
  if (typeof globalThis.WorkerGlobalScope !== "undefined") {
    return {
      post: (m, t) => self.postMessage(m, t ?? []),
      listen(f) {
        self.onmessage = (e) => f(e.data);
        // A message that cannot be read fails the pool's reads at once rather than leaving one waiting.
        self.onmessageerror = () => {
          throw new Error("a message from the main thread could not be read");
        };
      },
    };
  }
  // A name in a variable: bundlers for the browser leave it alone (see load.js).
  const threads = "node:worker_threads";
  const parent = import(/* webpackIgnore: true */ /* @vite-ignore */ threads).then(
    (m) => m.parentPort,
  );
  let parentPort = null; // set before the first message arrives: messages come only once it listens
  return {
    post: (m, t) => parentPort.postMessage(m, t ?? []),
    listen(f) {
      parent.then((p) => {
        parentPort = p;
        p.on("message", f);
        p.on("messageerror", () => {
          throw new Error("a message from the main thread could not be read");
        });
      });
    },
  };
})();

const stores = new Map(); // store id -> { store, users }: the stores this worker opens nodes from
const described = new Map(); // node id -> { store, path, options }, as the main thread sent it
const nodes = new Map(); // node id -> Promise of the opened node
const reads = new Map(); // task id -> AbortController
const storeRequests = new Map(); // request id -> { resolve, reject }
let nextRequest = 1;

/** The store a description from the main thread stands for (see describeStore in offthread.js). */
function storeFrom(desc) {
  let entry = stores.get(desc.id);
  if (!entry) {
    let store;
    if (desc.kind === "fetch") store = new FetchStore(desc.url, desc.options);
    else if (desc.kind === "reference") {
      store = new ReferenceStore(desc.source, desc.options);
      // The reference file the main thread read: opened from it, not read again.
      if (desc.document) resolved.set(store, desc.document);
    } else if (desc.kind === "icechunk") store = new IcechunkStore(desc.url, desc.options);
    else if (desc.kind === "zip")
      store = new ZipStore(storeFrom(desc.source), desc.key, desc.options);
    else store = mainThreadStore(desc);
    entry = { store, users: 0 };
    stores.set(desc.id, entry);
  }
  entry.users++;
  return entry.store;
}

/** Forgets a store (and the stores below it) once no node uses it. */
function dropStore(desc) {
  const entry = stores.get(desc.id);
  if (entry && --entry.users === 0) {
    stores.delete(desc.id);
    if (desc.kind === "zip") dropStore(desc.source); // the use storeFrom counted on creating it
  }
}

/** A store whose bytes the main thread reads (a store object of the user's, a MemoryStore...). */
function mainThreadStore(desc) {
  const ask = (key, range, op, value) =>
    new Promise((resolve, reject) => {
      const request = nextRequest++;
      storeRequests.set(request, { resolve, reject });
      // A value written is handed over, not copied: the module made it for this call alone, and
      // cloning a shard of tens of MiB held the main thread's event loop for up to 140 ms.
      const whole = value?.byteOffset === 0 && value.byteLength === value.buffer.byteLength;
      const transfer = whole && value.buffer instanceof ArrayBuffer ? [value.buffer] : [];
      port.post({ type: "store", request, store: desc.id, key, range, op, value }, transfer);
    });
  // `url` is what messages call the store: the main thread's name for it.
  const store = { get: (key) => ask(key, null), url: desc.label };
  if (desc.hasRange) store.getRange = (key, range) => ask(key, { ...range });
  // A store that writes writes through the main thread too (writes split among the workers).
  if (desc.writes) {
    store.set = (key, value) => ask(key, null, "set", value);
    store.delete = (key) => ask(key, null, "delete");
  }
  if (desc.cacheSize) store.cacheSize = desc.cacheSize;
  return store;
}

/** The node `id`, opened (again, if the last opening failed). */
function nodeFor(id) {
  let opening = nodes.get(id);
  if (!opening) {
    const { store, path, options, documents } = described.get(id);
    opening = __openReplaying(stores.get(store.id).store, { ...options, path }, documents);
    opening.catch(() => nodes.get(id) === opening && nodes.delete(id));
    nodes.set(id, opening);
  }
  return opening;
}

async function read(message) {
  const controller = new AbortController();
  reads.set(message.task, controller);
  try {
    const signal = controller.signal;
    if (message.type === "write") {
      // A part of a write: whole chunks (or shards) of the node, no other worker's.
      const node = await nodeFor(message.node);
      await node.set(message.selection, message.value, {
        signal,
        concurrency: message.concurrency,
        writeEmptyChunks: message.writeEmptyChunks,
        onProgress: message.progress
          ? (progress) => port.post({ type: "progress", task: message.task, progress })
          : undefined,
      });
      // The part's buffer, handed over by the main thread, goes back for its next copy.
      const spare = message.giveBack ? message.value.buffer : undefined;
      port.post(
        { type: "result", task: message.task, value: { data: null, spare } },
        spare ? [spare] : [],
      );
      return;
    }
    const run = (node) =>
      message.type === "chunk"
        ? node.getChunk(message.coords, { signal })
        : node.get(message.selection, {
            signal,
            concurrency: message.concurrency,
            bits: message.bits,
            onProgress: message.progress
              ? (progress) => port.post({ type: "progress", task: message.task, progress })
              : undefined,
          });
    // A node opened before the instance was replaced (a trap, memory given back) opens itself
    // again; a read that trapped is not tried again: it would trap again.
    const node = await nodeFor(message.node);
    // The shard indexes the main thread fetched for this part: kept, not asked for again.
    if (message.indexes) await __keepShardIndexes(node, message.indexes);
    const value = await run(node);
    port.post({ type: "result", task: message.task, value }, [...buffersOf(value.data)]);
  } catch (err) {
    port.post({ type: "error", task: message.task, error: errorToData(err) });
  } finally {
    reads.delete(message.task);
  }
}

port.listen(handle);

function handle(message) {
  switch (message.type) {
    case "batch": // reads handed out together (pool.js): started in one turn, their ranges merged
      for (const one of message.messages) handle(one);
      break;
    case "open":
      described.set(message.node.id, message.node);
      storeFrom(message.node.store);
      nodeFor(message.node.id).catch(() => {}); // the reads that need it see the failure
      break;
    case "read":
    case "chunk":
    case "write":
      if (!described.has(message.node)) {
        port.post({
          type: "error",
          task: message.task,
          error: {
            name: "SelectionError",
            message: `node ${message.node} is not open in this worker`,
          },
        });
      } else read(message);
      break;
    case "prepare": // the build the main thread is loading: its glue is imported meanwhile
      glueOf(message.kind).catch(() => {}); // a failure shows where the glue is used
      break;
    case "module": // the main thread's compiled module, sent before any node
      useCompiledModule(message.module, message.kind);
      break;
    case "warm": {
      // The instance started now, not at the first read (the pool reads on the main thread
      // until a worker is ready). A failure shows at the first read, which tries again.
      const ready = () => port.post({ type: "ready" });
      preload().then(ready, ready);
      break;
    }
    case "trap": // WorkerPool.__trapForTests
      __trapForTests(message.ms).catch(() => {});
      break;
    case "abort":
      reads.get(message.task)?.abort("the read was aborted on the main thread");
      break;
    case "free":
      nodes.get(message.node)?.then(
        (node) => node.free(),
        () => {},
      );
      nodes.delete(message.node);
      if (described.has(message.node)) dropStore(described.get(message.node).store);
      described.delete(message.node);
      break;
    case "store-reply": {
      const waiting = storeRequests.get(message.request);
      storeRequests.delete(message.request);
      if (message.error) {
        const { name, message: text, status } = message.error;
        waiting?.reject(Object.assign(new Error(text), { name: name ?? "Error", status }));
      } else waiting?.resolve(message.value);
      break;
    }
  }
}
