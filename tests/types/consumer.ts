// A typed consumer of the package: compiled by `tsc --strict` against pkg/index.d.ts (so the
// declarations are usable as written), then run by tests/node/types.test.mjs against the built
// package over HTTP (so what the declarations promise is what the code does). It returns what it
// saw, which the test checks.
import {
  type Chunk,
  type ChunkPart,
  type DataType,
  FetchStore,
  Group,
  MemoryStore,
  type Progress,
  SelectionError,
  type Store,
  ZarrArray,
  ZarrError,
  memoryUsage,
  bytesDecoder,
  open,
  slice,
} from "zarr-wasm";
import { codecNames, registerCodecs, zarritaStore } from "zarr-wasm/zarrita";

export interface Seen {
  kind: "array";
  dtype: DataType;
  shape: number[];
  values: number[];
  progress: Progress | null;
  parts: number;
  selectionError: boolean;
  storeReads: number;
  groupKind: "group";
  heapBytes: number;
  /** zarr-wasm/zarrita: the names registered in a Map. */
  registered: string[];
  /** codecs.zarr/zstd/level3's first row's first 5 values, by zarr-wasm from a zarrita-style Map. */
  throughZarritaStore: number[];
  gzipDecoded: number[];
  codecCount: number;
}

/** Reads the v3 uint16 fixture below `base` (the test server's fixtures URL). */
export async function consume(base: string): Promise<Seen> {
  const node = await open(new FetchStore(`${base}/v3.zarr`, { retries: 1 }), {
    path: "dtypes/uint16",
    limits: { maxChunksPerRead: 1000 },
  });
  if (!(node instanceof ZarrArray)) throw new Error("expected an array");
  let progress: Progress | null = null;
  const whole: Chunk = await node.get([slice(0, 5), null], {
    onProgress: (p) => {
      progress = p;
    },
  });
  if (!(whole.data instanceof Uint16Array)) throw new Error("uint16 reads as a Uint16Array");
  let parts = 0;
  for await (const part of node.iterate(null)) {
    const p: ChunkPart = part;
    parts += p.coords.length > 0 ? 1 : 0;
  }
  let selectionError = false;
  try {
    await node.get([100, 100]);
  } catch (err) {
    selectionError = err instanceof SelectionError && err instanceof ZarrError;
  }
  // A store of one's own: any object with get().
  let storeReads = 0;
  const memory = new MemoryStore();
  const response = await fetch(`${base}/v3.zarr/zarr.json`);
  memory.set("zarr.json", new Uint8Array(await response.arrayBuffer()));
  const counting: Store = {
    get(key) {
      storeReads++;
      return memory.get(key);
    },
  };
  const root = await open(counting);
  if (!(root instanceof Group)) throw new Error("the root is a group");
  const usage: { wasmBytes: number; heapBytes: number } = memoryUsage();
  node.free();
  // zarr-wasm/zarrita's declarations (zarrita itself: zarrita.ts): a registry filled, and a
  // zarrita-style store (keys with a leading "/") read by zarr-wasm.
  const registry = registerCodecs(new Map<string, () => unknown>(), { names: ["zstd"] });
  const zarritaKeys = new Map<string, Uint8Array>();
  for (const key of ["zarr.json", "zstd/level3/zarr.json", "zstd/level3/c/0/0"]) {
    const r = await fetch(`${base}/codecs.zarr/${key}`);
    zarritaKeys.set(`/${key}`, new Uint8Array(await r.arrayBuffer()));
  }
  const viaStore = await open(zarritaStore(zarritaKeys), { path: "zstd/level3" });
  if (!(viaStore instanceof ZarrArray)) throw new Error("expected an array");
  const row = await viaStore.get([0, slice(0, 5)]);
  const gzip = await bytesDecoder({ name: "gzip", configuration: { level: 1 } });
  // "hi" gzipped by Python's gzip with time stamp 0.
  const gz = [31, 139, 8, 0, 0, 0, 0, 0, 2, 255, 203, 200, 4, 0, 172, 42, 147, 216, 2, 0, 0, 0];
  const decoded: Uint8Array = await gzip.decode(new Uint8Array(gz));
  return {
    registered: [...registry.keys()],
    throughZarritaStore: Array.from(row.data as Uint16Array),
    gzipDecoded: Array.from(decoded),
    codecCount: codecNames.length,
    kind: node.kind,
    dtype: node.dtype,
    shape: whole.shape,
    values: Array.from(whole.data),
    progress,
    parts,
    selectionError,
    storeReads,
    groupKind: root.kind,
    heapBytes: usage.heapBytes,
  };
}
