/**
 * zarr-wasm inside zarrita.js apps: zarrita keeps its API, stores, selections and array codecs,
 * and decodes every bytes-to-bytes codec zarr-wasm knows with zarr-wasm's module.
 *
 * ```js
 * import * as zarr from "zarrita";
 * import { registerCodecs } from "zarr-wasm/zarrita";
 * registerCodecs(zarr.registry);
 * ```
 * @module zarr-wasm/zarrita
 */
import type { Store } from "./index.js";

/** zarrita's codec registry (`zarr.registry`): codec names to loaders of codec classes. */
export interface CodecRegistry {
  /** The loader registered under `name`, or undefined. */
  get(name: string): (() => unknown) | undefined;
  /** Registers `load` under `name`, replacing the loader there. */
  set(name: string, load: () => unknown): unknown;
}

/**
 * The bytes-to-bytes codecs zarr-wasm decodes, by their v3 names (zarrita names a v2 filter or
 * compressor `numcodecs.<id>`): compressors (blosc with every compressor and shuffle, zstd,
 * gzip, zlib, lz4, bz2, lzma), checksums (crc32c, numcodecs' crc32, adler32, fletcher32,
 * jenkins_lookup3), numcodecs' shuffle and base64, and the registry's conditional.
 */
export declare const codecNames: readonly string[];

/** Options of `registerCodecs`. */
export interface RegisterOptions {
  /** The codecs to register (default: every name in `codecNames`). */
  names?: readonly string[];
  /**
   * The most bytes a chunk may decode to. Default: `limits.maxDecodedChunkBytes`'s default
   * (256 MiB), or a chunk's size (with room for compressors' overhead) where it is larger.
   */
  maxBytes?: number;
}

/**
 * Registers zarr-wasm's decoders in `registry` (zarrita's `zarr.registry`) under each name, and
 * returns it. Encoding (zarrita's `set`) goes on using the codec that was registered under the
 * name before. Arrays zarrita has read before keep the codecs they loaded: register first.
 * Throws a TypeError (and registers nothing) for a name zarr-wasm does not decode.
 */
export declare function registerCodecs<R extends CodecRegistry>(
  registry: R,
  options?: RegisterOptions,
): R;

/** A store of zarrita's: keys like "/zarr.json", and optionally ranges. */
export interface ZarritaStore {
  /** The bytes of the value at `key` ("/zarr.json"), or undefined where the store has none. */
  get(
    key: string,
    options?: { signal?: AbortSignal },
  ): Promise<Uint8Array | undefined> | Uint8Array | undefined;
  /** The bytes of `range` of the value at `key`, or undefined where the store has none. */
  getRange?(
    key: string,
    range: { offset: number; length: number } | { suffixLength: number },
    options?: { signal?: AbortSignal },
  ): Promise<Uint8Array | undefined> | Uint8Array | undefined;
  /** Every key the store holds (a `Map`'s), each starting with "/": for listing directories. */
  keys?(): Iterable<string>;
  /** The store's URL, which names it in error messages. */
  url?: string | URL;
}

/**
 * A zarrita store (its `FetchStore`, a `Map` of its keys, anything with `get` and optionally
 * `getRange` in zarrita's signature, `{ suffixLength }` ranges included) as a zarr-wasm store:
 * `open(zarritaStore(store), { path })`. Signals reach the store's requests.
 */
export declare function zarritaStore(store: ZarritaStore): Store;

/** Options of `mergeRanges`. */
export interface MergeRangesOptions {
  /**
   * Ranges of one key closer than this many bytes go in one request (default 4096, as
   * zarr-wasm's own reader): a few KiB cost less than a round trip.
   */
  mergeGap?: number;
}

/**
 * `store` (a zarrita store with `getRange`: its `FetchStore`, or Viv's) with its range requests
 * merged: requests for one key made within a turn of the event loop of each other, and within
 * `mergeGap` bytes of each other, go as one request, each caller getting its own bytes.
 * zarrita.js asks for each inner chunk of a shard on its own; through this, the inner chunks a
 * view needs from one shard come in one request or a few. A caller's `AbortSignal` ends only
 * its own part (the merged request is aborted once every part of it is). Every other property
 * and method is the store's own.
 *
 * ```ts
 * import * as zarr from "zarrita";
 * import { mergeRanges } from "zarr-wasm/zarrita";
 * const store = mergeRanges(new zarr.FetchStore("https://example.org/image.ome.zarr"));
 * const arr = await zarr.open(zarr.root(store).resolve("0"), { kind: "array" });
 * ```
 */
export declare function mergeRanges<S extends Required<Pick<ZarritaStore, "getRange">>>(
  store: S,
  options?: MergeRangesOptions,
): S;
