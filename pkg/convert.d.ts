/**
 * Copies a Zarr hierarchy into a store that writes, every array re-encoded: another format,
 * chunk shape, shard shape or codec, and OME-Zarr 0.4 metadata as 0.5. The package's command,
 * `npx zarr-wasm convert <source> <destination> [options]`, is built on it (its `--help` gives the
 * options, which are these).
 *
 * ```ts
 * import { FileSystemHandleStore } from "zarr-wasm";
 * import { convert } from "zarr-wasm/convert";
 * const folder = await (await navigator.storage.getDirectory()).getDirectoryHandle("copy.ome.zarr", { create: true });
 * await convert("https://example.org/image.ome.zarr", new FileSystemHandleStore(folder), {
 *   ome: true,
 *   shards: [4096, 4096],
 *   codec: "zstd:5",
 *   onProgress: (p) => console.log(p.phase, p.bytesDone, p.bytesTotal),
 * });
 * ```
 * @module zarr-wasm/convert
 */
import type { FetchStore, Store, WritableStore } from "./index.js";

/** The codecs `parseCodec` and the command line's `--codec` name. */
export declare const CODECS: readonly ["zstd", "gzip", "blosc", "none"];

/** A codec for every array written, as `parseCodec` reads it from `zstd:5`, `blosc:lz4:5`... */
export interface ConvertCodec {
  /** The codec: `zstd`, `gzip`, `blosc`, or `none` (the elements' bytes alone). */
  name: "zstd" | "gzip" | "blosc" | "none";
  /** The compression level (zstd: default 3; gzip and Blosc: default 5). */
  level?: number;
  /** Blosc's compressor: blosclz, lz4, lz4hc, zlib or zstd. */
  cname?: "blosclz" | "lz4" | "lz4hc" | "zlib" | "zstd";
}

/**
 * Reads a codec as the command line's `--codec` gives it: `zstd[:level]`, `gzip[:level]`,
 * `blosc:<cname>[:level]` or `none`. Anything else is a RangeError saying what is accepted.
 */
export function parseCodec(text: string): ConvertCodec;

/** Where a conversion is, as `onProgress` reports it. */
export interface ConvertProgress {
  /** `copy` while arrays are written, then `verify` while they are read back. */
  phase: "copy" | "verify";
  /** Bytes of values (elements times their size) copied, or compared, in this phase. */
  bytesDone: number;
  /** Bytes of values in every array. */
  bytesTotal: number;
  /** The path of the array being copied or compared. */
  path: string;
  /** Arrays done in this phase. */
  arraysDone: number;
  /** Arrays in the hierarchy. */
  arraysTotal: number;
}

/** `convert`'s options. */
export interface ConvertOptions {
  /** The format written (default 3). */
  zarrFormat?: 2 | 3;
  /**
   * The chunk shape (with `shards`, the inner chunks'). Fewer numbers than an array has
   * dimensions apply to its last ones; the others keep the source's. Default: the source's
   * chunks (a sharded source's inner chunks).
   */
  chunks?: number[];
  /**
   * The shard shape (Zarr v3). Fewer numbers than an array has dimensions apply to its last
   * ones; the others take one chunk. Each is rounded up to a multiple of the chunk, and to no
   * more than the array needs. Default: a sharded v3 source's shards, else none.
   */
  shards?: number[];
  /** The codec of every array (a string as `parseCodec` reads it). Default: zstd at level 0. */
  codec?: string | ConvertCodec;
  /**
   * Writes OME-Zarr 0.4 (and earlier) metadata as OME-Zarr 0.5: the attributes under `ome`, each
   * image's axes and transformations as `openImage` reads them, and its levels' dimension names
   * from the axes. Zarr v3 only.
   */
  ome?: boolean;
  /** Decodes and encodes in this many workers (default 0: on the calling thread). */
  workers?: number;
  /** Reads every array back and compares it with the source (default true). */
  verify?: boolean;
  /**
   * Replaces a Zarr node already at the destination (erased first). Default false: a
   * destination that holds one is refused before anything is written.
   */
  overwrite?: boolean;
  /**
   * Writes consolidated metadata at the end. Default: where the source's root group has
   * consolidated metadata.
   */
  consolidated?: boolean;
  /** Aborting it stops the conversion between values: every value written is whole. */
  signal?: AbortSignal;
  /** Called as values are copied and compared. */
  onProgress?: (progress: ConvertProgress) => void;
}

/** What `convert` wrote. */
export interface ConvertResult {
  /** Arrays written. */
  arrays: number;
  /** Groups written (the root's included). */
  groups: number;
  /** Bytes of values in the arrays (elements times their size). */
  bytes: number;
  /** Regions written (each a box of whole shards or chunks, of at most 32 MiB). */
  regions: number;
}

/**
 * Copies the hierarchy at `source` (a URL or a store, as `open` takes it: v3, v2, v1, kerchunk
 * references, ZIP, Icechunk) into `destination`, every group with its attributes and every array
 * re-encoded as `options` say, in regions of whole shards or chunks, so that memory stays
 * bounded. Everything is planned and checked before anything is written: a data type that
 * cannot be written or a shape the options make invalid is an error naming the array, and a
 * destination that holds a Zarr node is refused unless `overwrite`. A store's refusal (a full
 * disk, a quota, a refused PUT) is a `StoreError` naming the key; the values already written
 * stay.
 */
export function convert(
  source: string | URL | Store | FetchStore,
  destination: WritableStore | FetchStore,
  options?: ConvertOptions,
): Promise<ConvertResult>;
