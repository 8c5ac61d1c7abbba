// A tiny app that uses zarr-wasm the way a user's would: imported by its package name, bundled
// (tests/browser/packaging.test.mjs builds it with each bundler, as the README's Bundlers section
// says) or run by Node as it is. It reads an array over HTTP on the main thread, through
// `open(url, { workers: 2 })` (a shared pool) and through a WorkerPool of its own, and reports
// the sums of the values and the dtype: in the page (window.result) or on standard output. The
// fixtures' URL is the page's #fragment or ZARR_BASE; ZARR_WORKER_URL, where set, is the worker
// script's URL (workerUrl, WorkerPool's url). A failure is reported as the error's class and
// message, and whether it is a ZarrError.
import { open, slice, NotFoundError, WorkerPool, ZarrError } from "zarr-wasm";

async function sumOf(node) {
  let sum = 0;
  for (const v of (await node.get([slice(0, 5), null])).data) sum += v;
  return sum;
}

export async function run(base, workerUrl) {
  const arr = await open(`${base}/v3.zarr`, { path: "dtypes/uint16" });
  const { shape } = await arr.get([slice(0, 5), null]);
  const sum = await sumOf(arr);
  let missing = "";
  try {
    await open(`${base}/v3.zarr`, { path: "no/such" });
  } catch (e) {
    missing = e instanceof NotFoundError ? "NotFoundError" : `unexpected ${e}`;
  }
  const shared = await open(`${base}/v3.zarr`, { path: "dtypes/uint16", workers: 2, workerUrl });
  const workersSum = await sumOf(shared);
  const pool = new WorkerPool(2, { url: workerUrl });
  try {
    const pooled = await open(`${base}/v3.zarr`, { path: "dtypes/uint16", workers: pool });
    return { dtype: arr.dtype, shape, sum, workersSum, poolSum: await sumOf(pooled), missing };
  } finally {
    pool.terminate();
  }
}

const failed = (e) => ({ error: e?.name, message: e?.message, zarrError: e instanceof ZarrError });
if (globalThis.document) {
  const base = decodeURIComponent(location.hash.slice(1));
  run(base, globalThis.ZARR_WORKER_URL).then(
    (result) => (globalThis.result = result),
    (e) => (globalThis.result = failed(e)),
  );
} else if (globalThis.process?.env?.ZARR_BASE) {
  const { ZARR_BASE, ZARR_WORKER_URL } = globalThis.process.env;
  run(ZARR_BASE, ZARR_WORKER_URL || undefined).then(
    (result) => console.log(JSON.stringify(result)),
    (e) => console.log(JSON.stringify(failed(e))),
  );
}
