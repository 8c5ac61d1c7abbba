// The command line's `--workers N` (pkg/cli.js): N worker threads, each with its own instance of
// the module and its own stores over the source and the destination (pkg/convert-worker.js), that
// copy and compare an array's regions side by side. Each thread runs the whole pipeline (read,
// decode, encode, write) for its regions, so nothing crosses between threads but the regions'
// boxes and their progress. Node only.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { compiledNow } from "./load.js";

/** An error as a worker reported it: its class's name and its message. */
function revived({ name, message }) {
  const err = new Error(message);
  err.name = name;
  return err;
}

export class RegionWorkers {
  /** `size` threads over the source and destination as the command line gave them. */
  constructor(size, source, destination) {
    this.size = Math.max(1, Math.min(size, availableParallelism() * 4));
    this.data = { source, destination };
    this.threads = [];
    this.jobs = 0;
  }

  /**
   * The threads, started now (the command line starts them before it plans the conversion, so
   * that they load their JavaScript meanwhile), or at the first job.
   */
  start() {
    while (this.threads.length < this.size) {
      const worker = new Worker(new URL("./convert-worker.js", import.meta.url), {
        workerData: this.data,
      });
      worker.unref();
      this.threads.push(worker);
    }
    return this.threads;
  }

  /**
   * Runs `job` (`{ phase, path, regions }`) over the threads, the regions dealt out in turn;
   * `onBytes(bytes)` after each region. Rejects with the first thread's error; an abort of
   * `signal` lets each finish the values it is writing, then rejects with an AbortError.
   */
  run(job, onBytes, signal) {
    const threads = this.start();
    const id = ++this.jobs;
    const shares = threads.map((_, t) => job.regions.filter((_, i) => i % threads.length === t));
    const parts = threads.map(
      (worker, t) =>
        new Promise((resolve, reject) => {
          if (shares[t].length === 0) return resolve();
          const onMessage = (message) => {
            if (message.id !== id) return;
            if (message.bytes !== undefined) return onBytes(message.bytes);
            worker.off("message", onMessage);
            worker.off("error", onError);
            if (message.error) reject(revived(message.error));
            else resolve();
          };
          const onError = (err) => {
            worker.off("message", onMessage);
            reject(err);
          };
          worker.on("message", onMessage);
          worker.on("error", onError);
          // With the write build this thread compiled (every job comes after the destination's
          // arrays are created): V8 shares its code between threads, so a thread neither
          // compiles the module again nor tiers its functions up again.
          const module = compiledNow("write");
          worker.postMessage({ id, module, job: { ...job, regions: shares[t] } });
        }),
    );
    const cancel = () => {
      for (const worker of threads) worker.postMessage({ cancel: id });
    };
    signal?.addEventListener("abort", cancel, { once: true });
    // A thread's failure stops the others' shares too.
    for (const part of parts) part.catch(cancel);
    // Every thread has stopped before this settles: none is left writing.
    return Promise.allSettled(parts).then((settled) => {
      signal?.removeEventListener("abort", cancel);
      // The first failure that is not another's cancellation, where there is one.
      const failures = settled.filter((s) => s.status === "rejected").map((s) => s.reason);
      if (failures.length > 0) throw failures.find((e) => e.name !== "AbortError") ?? failures[0];
    });
  }

  /** Stops the threads. */
  terminate() {
    for (const worker of this.threads) worker.terminate();
    this.threads = [];
  }
}
