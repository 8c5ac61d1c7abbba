// The arrays tests/browser/opfs.test.mjs writes, and their values: imported by its page, its worker
// and the test itself (which has zarr-python read them back).

/** The element (i, j) of every array written here: a hash, so that chunks hardly compress. */
export const valueAt = (i, j) => (Math.imul(i + 1, 2654435761) ^ Math.imul(j + 7, 40503)) >>> 16;

/** The arrays written: name, create options. */
export const ARRAYS = {
  plain: { shape: [300, 200], dtype: "uint16", chunks: [64, 64] },
  sharded: { shape: [256, 256], dtype: "float32", chunks: [32, 32], shards: [128, 128] },
  v2: { shape: [100, 90], dtype: "int32", chunks: [30, 30], zarrFormat: 2 },
};

/** The values of a `shape` array of `dtype`, C order. */
export function valuesOf(dtype, [rows, cols]) {
  const Kind = { uint16: Uint16Array, float32: Float32Array, int32: Int32Array }[dtype];
  const out = new Kind(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[i * cols + j] = valueAt(i, j);
  return out;
}
