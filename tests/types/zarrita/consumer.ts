// zarr-wasm/zarrita with zarrita.js's own types: its registry and FetchStore are what
// registerCodecs and zarritaStore take. Compiled by `tsc --strict` (its own tsconfig: zarrita's
// dependencies' declarations, numcodecs' and unzipit's, fail the library check under nodenext,
// so it skips that; ../consumer.ts checks zarr-wasm's declarations themselves), then run by
// tests/node/types.test.mjs.
import { ZarrArray, open, slice } from "zarr-wasm";
import { registerCodecs, zarritaStore } from "zarr-wasm/zarrita";
import * as zarr from "zarrita";

/** codecs.zarr/zstd/level3's first row's first 5 values, by zarrita with zarr-wasm's zstd and by zarr-wasm through zarrita's FetchStore. */
export async function consumeZarrita(base: string): Promise<{ zarrita: number[]; zarrWasm: number[] }> {
  registerCodecs(zarr.registry, { names: ["zstd"] });
  const store = new zarr.FetchStore(`${base}/codecs.zarr`);
  const arr = await zarr.open.v3(zarr.root(store).resolve("zstd/level3"), { kind: "array" });
  if (arr.dtype !== "uint16") throw new Error("expected uint16");
  const chunk = await zarr.get(arr, [0, zarr.slice(0, 5)]);
  const viaStore = await open(zarritaStore(store), { path: "zstd/level3" });
  if (!(viaStore instanceof ZarrArray)) throw new Error("expected an array");
  const row = await viaStore.get([0, slice(0, 5)]);
  return { zarrita: Array.from(chunk.data as Uint16Array), zarrWasm: Array.from(row.data as Uint16Array) };
}
