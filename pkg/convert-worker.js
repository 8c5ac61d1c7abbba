// A worker thread of the command line's `--workers N` (pkg/cli-workers.js): copies or compares
// the regions it is given of one array, with a module and stores of its own. Node only.
import { parentPort, workerData } from "node:worker_threads";
import { destinationLocation, sourceLocation } from "./cli-locations.js";
import { __runRegions } from "./convert.js";
import { FetchStore } from "./index.js";

/**
 * `store` with its writes in flight counted (`settled()` waits for them): a cancelled job's
 * array stops between values, but a file being written is finished (renamed over its key) before
 * the thread says it has stopped, and so before it is terminated. Package stores (a FetchStore:
 * a PUT cut off leaves no object) are used as they are.
 */
function counted(store) {
  if (store instanceof FetchStore) return { store, settled: async () => {} };
  const pending = new Set();
  const track = (promise) => {
    const p = Promise.resolve(promise);
    pending.add(p);
    p.then(
      () => pending.delete(p),
      () => pending.delete(p),
    );
    return p;
  };
  const wrapped = {
    url: store.url,
    get: (key, options) => store.get(key, options),
    getRange: (key, range, options) => store.getRange(key, range, options),
    list: (prefix, options) => store.list(prefix, options),
    set: (key, value, options) => track(store.set(key, value, options)),
    delete: (key, options) => track(store.delete(key, options)),
  };
  return { store: wrapped, settled: () => Promise.allSettled([...pending]) };
}

const source = sourceLocation(workerData.source);
const destination = destinationLocation(workerData.destination).then(counted);
const running = new Map(); // job id -> its AbortController

parentPort.on("message", async ({ id, job, cancel }) => {
  if (cancel !== undefined) return running.get(cancel)?.abort();
  const controller = new AbortController();
  running.set(id, controller);
  try {
    const target = await destination;
    try {
      await __runRegions(
        await source,
        target.store,
        job,
        (bytes) => parentPort.postMessage({ id, bytes }),
        controller.signal,
      );
    } finally {
      await target.settled();
    }
    parentPort.postMessage({ id, done: true });
  } catch (err) {
    parentPort.postMessage({
      id,
      error: { name: err?.name ?? "Error", message: err?.message ?? String(err) },
    });
  } finally {
    running.delete(id);
  }
});
