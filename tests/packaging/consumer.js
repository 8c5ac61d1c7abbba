// A tiny app that uses zarr-wasm the way a user's would: imported by its package name, bundled by
// webpack, Vite or esbuild (or run by Node as it is). It reads an array over HTTP, on the main
// thread and through a pool of two workers, and reports the sums of its values and its dtype, in
// the page (window.result) or on standard output. ZARR_WORKER_URL is the worker script's URL
// where the bundler does not bundle it (esbuild).
import { open, slice, NotFoundError, WorkerPool } from "zarr-wasm";

export async function run(base) {
  const arr = await open(`${base}/v3.zarr`, { path: "dtypes/uint16" });
  const { data, shape } = await arr.get([slice(0, 5), null]);
  let sum = 0;
  for (const v of data) sum += v;
  let missing = "";
  try {
    await open(`${base}/v3.zarr`, { path: "no/such" });
  } catch (e) {
    missing = e instanceof NotFoundError ? "NotFoundError" : `unexpected ${e}`;
  }
  const pool = new WorkerPool(2, {
    url: globalThis.ZARR_WORKER_URL ?? globalThis.process?.env?.ZARR_WORKER_URL,
  });
  try {
    const pooled = await open(`${base}/v3.zarr`, { path: "dtypes/uint16", workers: pool });
    let workerSum = 0;
    for (const v of (await pooled.get([slice(0, 5), null])).data) workerSum += v;
    return { dtype: arr.dtype, shape, sum, workerSum, missing };
  } finally {
    pool.terminate();
  }
}

const base = globalThis.ZARR_BASE ?? globalThis.process?.env?.ZARR_BASE;
if (base) {
  run(base).then(
    (result) => {
      if (globalThis.document) globalThis.result = result;
      else console.log(JSON.stringify(result));
    },
    (error) => {
      if (globalThis.document) globalThis.result = { error: String(error) };
      else console.error(error), (globalThis.process.exitCode = 1);
    },
  );
}
