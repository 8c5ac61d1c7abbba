// A tiny app that uses zarr-wasm the way a user's would: imported by its package name, bundled by
// webpack or esbuild (or run by Node as it is). It reads an array over HTTP and reports the sum of
// its values and its dtype, in the page (window.result) or on standard output.
import { open, slice, NotFoundError } from "zarr-wasm";

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
  return { dtype: arr.dtype, shape, sum, missing };
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
