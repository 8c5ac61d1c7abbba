// A worker thread of the command line's `--workers N` (pkg/cli-workers.js): copies or compares
// the regions it is given of one array, with a module and stores of its own. Node only.
import { parentPort, workerData } from "node:worker_threads";
import { destinationLocation, sourceLocation } from "./cli-locations.js";
import { __runRegions } from "./convert.js";
import { useCompiledModule } from "./load.js";

const source = sourceLocation(workerData.source);
const destination = destinationLocation(workerData.destination);
const running = new Map(); // job id -> its AbortController

parentPort.on("message", async ({ id, job, module, cancel }) => {
  if (cancel !== undefined) return running.get(cancel)?.abort();
  // The write build the main thread compiled (see cli-workers.js), where it has.
  if (module) useCompiledModule(module, "write");
  const controller = new AbortController();
  running.set(id, controller);
  try {
    // A cancelled job's writes end before __runRegions rejects (each file being written is
    // renamed over its key first), and so before the thread says it has stopped.
    await __runRegions(
      await source,
      await destination,
      job,
      (bytes) => parentPort.postMessage({ id, bytes }),
      controller.signal,
    );
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
