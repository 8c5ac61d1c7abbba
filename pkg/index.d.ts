/**
 * A Zarr v3 and v2 reader in Rust, compiled to WebAssembly: `open` an array or group at a URL or
 * in a store, then `get` typed arrays. The first `open` loads the module.
 *
 * ```ts
 * import { open, slice } from "zarr-wasm";
 * const arr = await open("https://example.org/image.ome.zarr", { kind: "array", path: "0" });
 * if (!arr.is("uint16")) throw new Error(`expected uint16, not ${arr.dtype}`);
 * const { data, shape } = await arr.get([0, 0, slice(0, 512), slice(0, 512)]);
 * const pixels: Uint16Array = data;
 * ```
 * @module zarr-wasm
 */

/** A selection along one dimension (see `slice`). */
export interface Slice {
  /** The first index (negative counts from the end); `null` for the start of the dimension. */
  start: number | null;
  /** The index the slice stops before (negative counts from the end); `null` for the end. */
  stop: number | null;
  /** The distance between indexes taken, a positive integer; `null` for 1. */
  step: number | null;
}

/** Per dimension: `null` for all of it, an integer to pick one index (the axis is dropped), or a slice. */
export type Selection = ReadonlyArray<number | Slice | null>;

/** `slice(stop)` or `slice(start, stop, step)`, Python style (negative bounds count from the end). */
export function slice(stop: number | null): Slice;
export function slice(start: number | null, stop: number | null, step?: number | null): Slice;

/**
 * Data type names: the Zarr v3 core names (`r8`, `r16`, ... are raw types of that many bits, also
 * Zarr v2's `|V<n>`), the variable-length `string` and `variable_length_bytes` (v2 object arrays),
 * and for types only Zarr v2 has, NumPy's: `datetime64[unit]` and `timedelta64[unit]`
 * (`M8`/`m8`), `S<n>` byte strings, `U<n>` Unicode strings and `structured` records.
 */
export type DataType =
  | "bool"
  | "int8"
  | "int16"
  | "int32"
  | "int64"
  | "uint8"
  | "uint16"
  | "uint32"
  | "uint64"
  | "float16"
  | "float32"
  | "float64"
  | "complex64"
  | "complex128"
  | NarrowFloat
  | `complex_${NarrowFloat | "float16"}`
  | "int4"
  | "int2"
  | "uint4"
  | "uint2"
  | `r${number}`
  | "string"
  | "variable_length_bytes"
  | "object"
  | `datetime64[${string}]`
  | `timedelta64[${string}]`
  | `S${number}`
  | `U${number}`
  | "structured";

/**
 * The narrow float types of machine learning (the zarr-extensions registry), returned as a
 * Float32Array of their exact values.
 */
export type NarrowFloat =
  | "bfloat16"
  | "float8_e4m3fn"
  | "float8_e4m3fnuz"
  | "float8_e4m3b11fnuz"
  | "float8_e5m2"
  | "float8_e5m2fnuz"
  | "float8_e4m3"
  | "float8_e3m4"
  | "float8_e8m0fnu"
  | "float6_e2m3fn"
  | "float6_e3m2fn"
  | "float4_e2m1fn";

/**
 * The typed array a data type is returned as: `bool` and `r*` as bytes (0/1, or N/8 bytes per
 * element), `float16` as a Float16Array where the runtime has one and otherwise a Float32Array of
 * the same values, `complex64`/`complex128` as interleaved (re, im) Float32Array/Float64Array;
 * the narrow floats as a Float32Array of their values (`complex_*` interleaved), `int4`/`int2` as
 * an Int8Array and `uint4`/`uint2` as a Uint8Array.
 */
export type TypedArray =
  | Uint8Array
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array
  | Float32Array
  | Float64Array
  | (typeof globalThis extends {
      /**
       * The runtime's Float16Array constructor, where the TypeScript lib declares one.
       * @returns A Float16Array: the type of its instances is the one used here.
       */
      Float16Array: abstract new (
        // biome-ignore lint/suspicious/noExplicitAny: inferring the instance type needs any
        ...args: any
      ) => infer F;
    }
      ? F
      : never);

/** A Float16Array where the runtime has one (its type where the TypeScript lib declares it), else a Float32Array of the same values. */
export type Float16Values =
  | Float32Array
  | (typeof globalThis extends {
      /**
       * The runtime's Float16Array constructor, where the TypeScript lib declares one.
       * @returns A Float16Array: the type of its instances is the one used here.
       */
      Float16Array: abstract new (
        // biome-ignore lint/suspicious/noExplicitAny: inferring the instance type needs any
        ...args: any
      ) => infer F;
    }
      ? F
      : never);

/** The data types whose values `get` returns as numbers in a typed array, one per element (`arr.is("number")`). */
export type NumberDataType =
  | "int8"
  | "int16"
  | "int32"
  | "uint8"
  | "uint16"
  | "uint32"
  | "int4"
  | "int2"
  | "uint4"
  | "uint2"
  | "float16"
  | "float32"
  | "float64"
  | NarrowFloat;

/** The data types whose values `get` returns as BigInts (`arr.is("bigint")`). */
export type BigintDataType =
  | "int64"
  | "uint64"
  | `datetime64[${string}]`
  | `timedelta64[${string}]`;

/** The data types whose values `get` returns as strings (`arr.is("string")`). */
export type StringDataType = "string" | `S${number}` | `U${number}`;

/** What `ZarrArray.is` takes: a data type, or a family of them. */
export type DataTypeQuery = DataType | "number" | "bigint" | "string" | "boolean";

/** The data types a query stands for. */
export type DataTypeOf<Q extends DataTypeQuery> = Q extends "number"
  ? NumberDataType
  : Q extends "bigint"
    ? BigintDataType
    : Q extends "string"
      ? StringDataType
      : Q extends "boolean"
        ? "bool"
        : Q;

/** What `get` returns in `data` for data type `D` (see TypedArray and Values). */
export type ValuesOf<D extends DataType> = D extends
  | "bool"
  | "uint8"
  | "uint4"
  | "uint2"
  | `r${number}`
  ? Uint8Array
  : D extends "int8" | "int4" | "int2"
    ? Int8Array
    : D extends "int16"
      ? Int16Array
      : D extends "int32"
        ? Int32Array
        : D extends "uint16"
          ? Uint16Array
          : D extends "uint32"
            ? Uint32Array
            : D extends "int64" | `datetime64[${string}]` | `timedelta64[${string}]`
              ? BigInt64Array
              : D extends "uint64"
                ? BigUint64Array
                : D extends "float16"
                  ? Float16Values
                  : D extends "float32" | "complex64" | NarrowFloat | `complex_${string}`
                    ? Float32Array
                    : D extends "float64" | "complex128"
                      ? Float64Array
                      : D extends "string" | `S${number}` | `U${number}`
                        ? string[]
                        : D extends "variable_length_bytes"
                          ? Uint8Array[]
                          : D extends "structured"
                            ? StructuredValues
                            : D extends "object"
                              ? unknown[]
                              : Values;

/**
 * A structured result: per field, its values (C order of the selection, then the field's
 * subarray shape) as the field's data type is returned, or a nested record's fields.
 */
export interface StructuredValues {
  [field: string]: TypedArray | string[] | StructuredValues;
}

/**
 * What a read returns in `data`: a typed array for numbers (`datetime64`/`timedelta64` as
 * BigInt64Array), a JS `Array` of strings for `string`, `S<n>` and `U<n>`, of Uint8Arrays for
 * `variable_length_bytes`, of JS values for `object` (a v2 object array encoded by numcodecs'
 * `json2`), and an object of fields for `structured`.
 */
export type Values = TypedArray | string[] | Uint8Array[] | StructuredValues | unknown[];

/** What a read returns: the values, with their shape and strides. */
export interface Chunk<T extends Values = Values> {
  /** Elements in C order. */
  data: T;
  /** The result's length along each dimension, in elements. */
  shape: number[];
  /** C-order strides, in elements. */
  stride: number[];
}

/** A node's attributes: a JSON object (v3 metadata's `attributes`, v2 `.zattrs`, v1 `attrs`). */
export type Attributes = Record<string, unknown>;

/** Options of `new FetchStore(url, options)`: how its requests are made; all optional. */
export interface FetchStoreOptions {
  /**
   * How the end of a value (a shard index at the end) is asked for. true: one suffix range
   * request (`bytes=-N`); false: HEAD for the length, then an explicit range. Default: true on
   * the page's own origin, in Node, and with `headers` that cost a preflight anyway (an
   * Authorization); from a page of another origin, HEAD and an explicit range (suffix ranges
   * where HEAD does not serve: refused, answered with an error or without a length), since a
   * browser sends a suffix range to another origin only after a CORS preflight, and only where
   * the server's CORS rules allow the Range header, and an explicit range needs neither.
   */
  suffixRequests?: boolean;
  /** Read HTTP 403 as a missing key (fill value), for buckets that answer 403 for missing keys. */
  treat403AsMissing?: boolean;
  /**
   * Extra tries after a network failure or a 408/429/5xx answer, with doubling waits (default
   * 3); for writes also after a failure a browser cannot tell from a CORS refusal (a connection
   * reset during an upload): PUT and DELETE are sent again whole.
   */
  retries?: number;
  /** Requests in flight at once for this store (default 32); others wait their turn. */
  maxRequests?: number;
  /** Inner-chunk ranges of a shard closer than this many bytes are fetched in one request (default 4096). */
  mergeGap?: number;
  /** Shard indexes kept per array (default 4096). */
  indexCacheSize?: number;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** fetch's `credentials`: whether requests send cookies (default: the platform's). */
  credentials?: "omit" | "same-origin" | "include";
  /**
   * Used instead of the global fetch for every request (reads, writes, listings): to sign them
   * (aws4fetch's `AwsClient.fetch`), or to send each to a URL the app's own server presigned.
   */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Whether the store writes (default false): `set` is a PUT of the value whole, `delete` a
   * DELETE (a 404 is nothing to delete), and `erase` and `resize` find the keys below a path
   * with S3's ListObjectsV2 (`listing`; with "auto" on a host that is not AWS or Google, the URL
   * is taken as a path-style bucket, `<endpoint>/<bucket>/<prefix>`, as MinIO, R2, Ceph and moto
   * serve them). An answer other than 2xx is a `StoreError` naming the key, the status and the
   * S3 error code where the answer has one.
   */
  writable?: boolean;
  /** Bytes of recent responses kept in memory (default 0). Identical requests in flight are always shared. */
  cacheSize?: number;
  /**
   * Milliseconds a request may go without progress (its headers, then each part of its body)
   * before it is cancelled and retried like a network failure (default 30000; 0: no timeout).
   */
  timeout?: number;
  /**
   * The largest value accepted whole (default 1 GiB): a larger body is refused by its
   * Content-Length or as it streams. An answer to a range request is never longer than the range.
   */
  maxObjectBytes?: number;
  /** What fetch does with redirects (default "follow", as browsers do; "error" refuses them). */
  redirect?: "follow" | "error" | "manual";
  /**
   * How the store lists a directory, which only Zarr Vectors' link arrays need (Zarr never does).
   * "auto" (the default): the bucket's own listing where the URL's host is AWS S3
   * (`<bucket>.s3.<region>.amazonaws.com`, `s3.<region>.amazonaws.com/<bucket>`) or Google Cloud
   * Storage (`storage.googleapis.com/<bucket>`, `<bucket>.storage.googleapis.com`), else the
   * server's directory index pages. `{ s3: bucketUrl }`: an S3-compatible bucket (MinIO, R2,
   * Ceph) whose objects are at `bucketUrl`, listed with ListObjectsV2; `{ gcs: bucketUrl }`: a GCS
   * bucket at `<endpoint>/<bucket>`, listed by the JSON API at `<endpoint>/storage/v1/b/<bucket>/o`.
   * "index": index pages only; "none": never list. Where a listing is refused (403) or missing,
   * the link arrays a read needs are asked for by name instead.
   */
  listing?:
    | "auto"
    | "index"
    | "none"
    | {
        /** The URL of an S3-compatible bucket, listed with ListObjectsV2. */
        s3: string;
      }
    | {
        /** The URL of a GCS bucket, `<endpoint>/<bucket>`, listed by the JSON API. */
        gcs: string;
      };
}

/** A store that reads keys over HTTP(S) below `url` with fetch(), and writes with `writable: true` (see FetchStoreOptions). */
export class FetchStore {
  constructor(url: string | URL, options?: FetchStoreOptions);
  /** The URL the keys are read below, as a string. */
  readonly url: string;
  /** The options it was made with. */
  readonly options: FetchStoreOptions;
}

/** A byte range a store is asked for: `length` bytes from `offset` (to the end without one), or the last `suffixLength` bytes. */
export type RangeRequest =
  | {
      /** The first byte's offset in the value. */
      offset: number;
      /** Bytes to read from `offset`; without it, to the end of the value. */
      length?: number;
    }
  | {
      /** Bytes to read from the end of the value. */
      suffixLength: number;
    };

/** What zarr-wasm passes to a store's `get`, `getRange` and `list` with each request. */
export interface StoreOptions {
  /** The signal of the read this request belongs to: stop when it aborts (reject with an AbortError). */
  signal?: AbortSignal;
}

/**
 * Any store: an object whose `get` resolves to the value's bytes, or `undefined` when the key has
 * none (a missing chunk reads as the fill value). `getRange` is optional (without it, ranges are
 * cut from whole values); `url`, where present, names the store in error messages. A rejection
 * becomes a StoreError naming the key (an AbortError if it is named so or the signal aborted).
 */
export interface Store {
  /** The bytes of the value at `key`, or `undefined` where the store has none. */
  get(
    key: string,
    options?: StoreOptions,
  ): Promise<Uint8Array | ArrayBuffer | undefined> | Uint8Array | undefined;
  /** The bytes of `range` of the value at `key`, or `undefined` where the store has none. */
  getRange?(
    key: string,
    range: RangeRequest,
    options?: StoreOptions,
  ): Promise<Uint8Array | ArrayBuffer | undefined> | Uint8Array | undefined;
  /**
   * The names directly below the directory `prefix` ("" is the root), or undefined if the store
   * cannot tell. Zarr never needs it; Zarr Vectors' link arrays are found by it.
   */
  list?(
    prefix: string,
    options?: StoreOptions,
  ): Promise<string[] | undefined> | string[] | undefined;
  /**
   * Every key the store holds, for a store without `list` (a `Map` has it): the names below a
   * directory are found among them.
   */
  keys?(): Iterable<string>;
  /** The store's name in error messages, such as its URL. */
  url?: string;
  /** Bytes of recent values zarr-wasm keeps from this store (default 0). */
  cacheSize?: number;
}

/** A store held in memory: keys to bytes. */
export class MemoryStore implements Store {
  constructor(entries?: Iterable<[string, Uint8Array]>);
  /** The values held, by key. */
  readonly map: Map<string, Uint8Array>;
  /** Holds `value` at `key` (an ArrayBuffer as a Uint8Array over it); returns the store. */
  set(key: string, value: Uint8Array | ArrayBuffer): this;
  /** The value at `key`, or `undefined` where there is none. */
  get(key: string): Uint8Array | undefined;
  /** The bytes of `range` of the value at `key` (a view), or `undefined` where there is none. */
  getRange(key: string, range: RangeRequest): Uint8Array | undefined;
  keys(): IterableIterator<string>;
  /** Removes the value at `key` (what writing erases goes through it). */
  delete(key: string): void;
}

/**
 * A store that writes: a store with `set(key, bytes, { signal })` and `delete(key, { signal })`
 * (each may return a promise), and `keys()` or `list(prefix)` where `erase` and `resize` need to
 * find what lies below a path. `MemoryStore` is one.
 */
export interface WritableStore extends Store {
  /** Stores `value` at `key`, whole (may return a promise; a rejection fails the write). */
  set(key: string, value: Uint8Array, options?: { signal?: AbortSignal }): unknown;
  /** Removes the value at `key`, if there is one (may return a promise). */
  delete(key: string, options?: { signal?: AbortSignal }): unknown;
}

/** Options of `new FileSystemHandleStore(directory, options)`. */
export interface FileSystemHandleStoreOptions {
  /**
   * Whether writes go through sync access handles (a temporary file written in place, then moved
   * over the key's file): `"auto"` (the default) in a worker where the browser has them, `false`
   * never (writables always), `true` wherever they exist (only in workers).
   */
  syncAccessHandles?: boolean | "auto";
}

/**
 * A store whose keys are files below a `FileSystemDirectoryHandle`: the origin private file system
 * (`await navigator.storage.getDirectory()`) or a folder the user picked
 * (`await showDirectoryPicker({ mode: "readwrite" })`). Key `"a/b/zarr.json"` is the file
 * `zarr.json` in folder `b` in folder `a`. On the main thread and in workers.
 *
 * Each value is replaced whole: through a writable the browser commits when it is closed (and
 * discards when aborted), or in a worker through a sync access handle on a temporary file that is
 * moved over the key's file once written and flushed. A failed or aborted write leaves the old
 * value, and listings never show the temporary files. A quota error or a refused permission
 * rejects the write with the browser's `DOMException`, which the writer reports as a
 * `StoreError` naming the key.
 */
export class FileSystemHandleStore implements WritableStore {
  constructor(directory: FileSystemDirectoryHandle, options?: FileSystemHandleStoreOptions);
  /** The directory handle given. */
  readonly directory: FileSystemDirectoryHandle;
  /** Names the store in error messages: `file-system-handle:<the folder's name>`. */
  readonly url: string;
  /** Whether writes go through sync access handles (in a worker), rather than writables. */
  readonly syncAccessHandles: boolean;
  /** The bytes of `key`'s file, or undefined where there is none. */
  get(key: string, options?: StoreOptions): Promise<Uint8Array | undefined>;
  /** The bytes of `range` of `key`'s file (cut at its end), or undefined where there is none. */
  getRange(
    key: string,
    range: RangeRequest,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined>;
  /** The names in the folder `prefix` ("" is the root), sorted, or undefined where there is none. */
  list(prefix: string, options?: StoreOptions): Promise<string[] | undefined>;
  /** Writes `value` at `key`, whole (see the class); folders are made as needed. */
  set(key: string, value: Uint8Array, options?: { signal?: AbortSignal }): Promise<void>;
  /** Removes `key`'s file; a missing one is not an error. */
  delete(key: string, options?: { signal?: AbortSignal }): Promise<void>;
}

/**
 * A Zarr hierarchy in a ZIP file (zarr-python's ZipStore; stored or deflated members, ZIP64),
 * read with range requests: the end of the archive, its central directory, then only what reads
 * need (stored members in ranges too). `source` is the archive's URL, or a store with `key` the
 * archive's key in it. Opening it again reuses the directory. Read by the module's full build,
 * which the first `open()` of a ZipStore loads.
 */
export class ZipStore {
  constructor(
    source: string | URL | FetchStore | Store,
    key?: string,
    options?: {
      /** Bytes of recent member data kept in memory (default 0). */
      cacheSize?: number;
    },
  );
  /** Where the archive is read: a FetchStore of its URL, or the store given. */
  readonly source: FetchStore | Store;
  /** The archive's key in `source` ("" where `source` is the archive's URL). */
  readonly key: string;
  /** The options it was made with. */
  readonly options: {
    /** Bytes of recent member data kept in memory (default 0). */
    cacheSize?: number;
  };
}

/** The ReferenceStore's options: the FetchStore's for its requests (the reference file's and its targets'), and its bounds. */
export interface ReferenceStoreOptions extends Omit<FetchStoreOptions, "listing"> {
  /**
   * The largest reference file read (default 256 MiB): a larger one is refused as it arrives.
   * Parquet references: `.zmetadata` and each reference file, what a file's pages decompress to,
   * and the reference files kept in memory together.
   */
  maxReferenceBytes?: number;
  /**
   * The most keys, written and generated together (default 10,000,000): a `gen` generator's keys
   * are counted before any is made, and a file past it is refused. Parquet references: the most
   * rows a reference file may have (`record_size`).
   */
  maxRefs?: number;
  /**
   * URL prefixes rewritten before target URLs are resolved (the longest matching prefix wins), for
   * mirrors and for targets that are not http(s): `{ "file:///data/": "https://example.org/data/" }`.
   */
  urlMap?: Record<string, string>;
  /** The URL relative target URLs resolve against when `source` is an object, not a URL. */
  baseUrl?: string | URL;
}

/**
 * kerchunk / VirtualiZarr references: NetCDF-4, HDF5, TIFF or GRIB files read as a Zarr v2
 * hierarchy through a reference JSON file that says where each key's bytes are. `source` is the
 * file's URL, or the file parsed. Versions 0 (`{key: ref}`) and 1 (`{"version": 1, "templates",
 * "gen", "refs"}`) are read: inline values (text, `base64:` bytes), whole files `[url]` and byte
 * ranges `[url, offset, length]`; `{{name}}` templates; `gen` generators over integer dimensions
 * (their expressions: integers, names, `+ - * // %` and parentheses). Target URLs relative to the
 * file resolve against its URL; `s3://bucket/key` reads from `https://bucket.s3.amazonaws.com/key`
 * and `gs://bucket/key` from `https://storage.googleapis.com/bucket/key` (`urlMap` for others).
 * Ranges of one target that reads ask for together are fetched in one request where they lie
 * within `mergeGap` bytes of each other. A key the file does not have is missing (the fill value);
 * a target that answers 404 is a StoreError naming the key and the target. Opening it again
 * reuses the parsed file.
 *
 * `source` may also be the URL of a directory of kerchunk's Parquet references (fsspec's
 * `LazyReferenceMapper`, `kerchunk.df.refs_to_dataframe`): a URL that ends in `/`, `.parq` or
 * `.parquet`, or its `.zmetadata`'s URL (a JSON file's URL that answers 404 is tried as a
 * directory too). Its `.zmetadata` is read on opening; each `<array>/refs.<i>.parq` file is
 * fetched the first time a chunk in it is read, once, and kept (within `maxReferenceBytes`). A
 * missing reference file or a null reference is a missing chunk (the fill value). The files may be
 * written by fastparquet or pyarrow, uncompressed or with Snappy, GZIP or ZSTD.
 *
 * It is read by the module's full build, which a page loads at its first open() of a
 * ReferenceStore (see `preload`).
 */
export class ReferenceStore {
  constructor(source: string | URL | Record<string, unknown>, options?: ReferenceStoreOptions);
  /** The reference file's (or Parquet reference directory's) URL, when `source` was one. */
  readonly url?: string;
  /** The reference object, when `source` was one. */
  readonly references?: Record<string, unknown>;
  /** The options it was made with. */
  readonly options: ReferenceStoreOptions;
}

/** The IcechunkStore's options: the version read, where virtual chunks may come from, and the FetchStore's for its requests. */
export interface IcechunkStoreOptions extends Omit<FetchStoreOptions, "listing"> {
  /** The branch read (default "main"). At most one of `branch`, `tag` and `snapshot`. */
  branch?: string;
  /** The tag read, instead of a branch. */
  tag?: string;
  /** The snapshot read, by its id (20 Crockford base 32 characters, as icechunk prints them). */
  snapshot?: string;
  /**
   * URL prefixes of the virtual chunk containers whose chunks may be read, such as
   * `["s3://my-bucket/netcdf/"]`: icechunk's `authorize_virtual_chunk_access` keys. The repository
   * says where its virtual chunks are, so the reader asks for none outside these (default: none):
   * reading one is a StoreError naming its URL and this option.
   */
  allowedContainers?: string[];
  /**
   * URL prefixes rewritten before virtual chunks (and the repository's own URL) are fetched (the
   * longest matching prefix wins), for mirrors and for locations that are not http(s), s3 or gs;
   * containers are matched first.
   */
  urlMap?: Record<string, string>;
  /** The largest metadata file (repo info, snapshot, manifest) read, decompressed (default 256 MiB). */
  maxMetadataBytes?: number;
}

/**
 * An Icechunk repository, read-only, at a branch (default "main"), a tag or a snapshot: what
 * icechunk 1.x and 2.x write (spec versions 1 and 2). `url` is the repository's root, http(s), or
 * `s3://bucket/prefix` (read from `https://bucket.s3.amazonaws.com/prefix`) or `gs://bucket/prefix`
 * (from `https://storage.googleapis.com/bucket/prefix`); the bucket must be public or the `fetch`
 * option must sign. Opening reads the ref (the `repo` file, or `refs/` in spec version 1) and the
 * snapshot; each chunk manifest is fetched when a read first needs a chunk it holds, and kept.
 * Native chunks are read from the repository, inline ones from the manifest, virtual ones from
 * their URL if `allowedContainers` allows it; a chunk the manifests do not have is the fill value.
 * A branch or tag it does not have is a NotFoundError naming it. `vcc://<name>/...` locations
 * resolve through the named containers of the repository's configuration (spec 2). Virtual chunk
 * checksums (ETag, last modified) are not checked. It is read by the module's full build, which a
 * page loads at its first open() of an IcechunkStore.
 */
export class IcechunkStore {
  constructor(url: string | URL, options?: IcechunkStoreOptions);
  /** The repository's root URL, as a string (http(s), `s3://` or `gs://`). */
  readonly url: string;
  /** The options it was made with. */
  readonly options: IcechunkStoreOptions;
}

/** The base class of every error zarr-wasm rejects with; messages name the URL or key. */
export class ZarrError extends Error {}
/** No Zarr node at the path (no zarr.json, .zarray or .zgroup); no consolidated metadata where asked for. */
export class NotFoundError extends ZarrError {}
/** Metadata that is not JSON or not valid Zarr. */
export class MetadataError extends ZarrError {}
/** Valid Zarr that uses something not implemented: a codec, data type, grid, key encoding... */
export class UnsupportedError extends ZarrError {}
/** A chunk that cannot be decoded: the message names the codec, the chunk and the problem. */
export class CodecError extends ZarrError {}
/** A store could not deliver bytes: network failure, an HTTP status (in `status`), a store's own error. */
export class StoreError extends ZarrError {
  /** The HTTP status the server answered with, where there was one. */
  readonly status: number | null;
}
/** A selection, chunk coordinates, node path or option that does not fit. */
export class SelectionError extends ZarrError {}
/** The call's AbortSignal was aborted. */
export class AbortError extends ZarrError {}
/**
 * The module failed (a trap) and was replaced by a fresh instance: the call was abandoned. Nodes
 * opened before open themselves again in the new instance (their next read waits for that);
 * `chunkExtent()` and `chunksIn()`, which cannot wait, throw this error until they have.
 */
export class ResetError extends ZarrError {}
/**
 * A worker pool could not run the call: a worker could not start, failed or exited while the call
 * was in it, or the pool was terminated. The pool starts new workers for the next call.
 */
export class WorkerError extends ZarrError {}

/** Bounds on what reads may cost; every one has a default no real data meets. */
export interface Limits {
  /** Chunks (inner chunks, for a sharded array) one read may touch (default 1,048,576). */
  maxChunksPerRead?: number;
  /** Bytes of one read's result (default 1 GiB). */
  maxBytesPerRead?: number;
  /** Bytes a chunk of strings or bytes (no fixed decoded size) may decode to (default 256 MiB). */
  maxDecodedChunkBytes?: number;
  /** Bytes of one string or byte string (default 536,870,888: JavaScript's longest string). */
  maxItemBytes?: number;
}

/** One field of a structured type. */
export interface Field {
  /** The field's name. */
  name: string;
  /** Bytes from the start of the record. */
  offset: number;
  /** Subarray shape; `[]` for one value per record. */
  shape: number[];
  /** The field's type; "structured" for a nested record, whose fields are in `fields`. */
  dtype: DataType;
  /** A nested record's fields, where `dtype` is "structured". */
  fields?: Field[];
}

/**
 * An array. `D` is its data type where it is known (after `is`), which types what reads return:
 * `if (arr.is("uint16"))` makes `(await arr.get()).data` a Uint16Array.
 */
export class ZarrArray<D extends DataType = DataType> {
  /** Always "array" (a Group's is "group"). */
  readonly kind: "array";
  /** Path of the node in its hierarchy ("" for the root). */
  readonly path: string;
  /** The format the node's metadata is written in. */
  readonly zarrFormat: 1 | 2 | 3;
  /** The array's shape: its length in elements along each dimension. */
  readonly shape: number[];
  /** The chunk shape of a regular grid; `null` for a rectilinear grid (see `chunkExtent`). */
  readonly chunks: number[] | null;
  /** The chunk grid's kind: "regular" (one chunk shape) or "rectilinear" (see `chunkExtent`). */
  readonly chunkGrid: "regular" | "rectilinear";
  /** The number of chunks along each dimension that cover the array. */
  readonly gridShape: number[];
  /**
   * A sharded array's inner chunk shape, in the array's axes (also where a transpose comes before
   * `sharding_indexed`): the unit a partial read fetches and decodes, and a good tile size.
   * `null` for other arrays.
   */
  readonly innerChunks: number[] | null;
  /** The data type (see DataType); `is` narrows its TypeScript type. */
  readonly dtype: D;
  /**
   * Whether the data type is `query` (`"uint16"`), or one of the family it names: `"number"`
   * (values returned as numbers in a typed array, one per element: integers of up to 32 bits and
   * real floats, narrow ones included), `"bigint"` (64-bit integers, `datetime64`,
   * `timedelta64`), `"string"` (`string`, `S<n>`, `U<n>`) or `"boolean"` (`bool`). In
   * TypeScript it narrows the array's type, and with it what `get` returns.
   */
  is<Q extends DataTypeQuery>(query: Q): this is ZarrArray<Extract<DataTypeOf<Q>, DataType>>;
  /** For `datetime64`/`timedelta64`: the unit, as NumPy writes it (`ns`, `D`, `10s`...). */
  readonly timeUnit?: string;
  /** For `structured`: its fields. */
  readonly fields?: Field[];
  /**
   * `bigint` for 64-bit integer and datetime types, `boolean` for bool, `[re, im]` for complex
   * types, a string for string types, a Uint8Array for `r*`, `variable_length_bytes` and
   * `structured` (the record's stored bytes), else a number (NaN and infinities included).
   * `null` where Zarr v2 metadata gives none: missing chunks then read as zeros (empty strings).
   */
  readonly fillValue: number | bigint | boolean | string | [number, number] | Uint8Array | null;
  /** The array's attributes. */
  readonly attrs: Attributes;
  /**
   * A name per dimension (`null` for one without), or `null` where the metadata has none (v3's
   * `dimension_names`, v2's `_ARRAY_DIMENSIONS` attribute).
   */
  readonly dimensionNames: (string | null)[] | null;
  /** Reads a selection; no argument reads everything. Missing chunks read as the fill value. */
  get(
    selection: Selection | null | undefined,
    options: GetOptions & { bits: true },
  ): Promise<Chunk<ValuesOf<D> | Uint8Array | Uint16Array>>;
  get(selection?: Selection | null, options?: GetOptions): Promise<Chunk<ValuesOf<D>>>;
  /**
   * Reads a selection chunk by chunk, in chunk order, `concurrency` (default 4) chunks ahead:
   * each part says where it goes in the whole selection's result (`origin`, in the result's
   * dimensions). Leaving the loop early cancels the reads ahead.
   */
  iterate(
    selection?: Selection | null,
    options?: IterateOptions,
  ): AsyncGenerator<ChunkPart<ValuesOf<D>>, void, void>;
  /**
   * Releases the node's memory in the module now (else when it is garbage-collected); later
   * calls reject. Where the runtime has `Symbol.dispose`, `[Symbol.dispose]()` is `free()` too
   * (not declared here, so that these types work without the `esnext.disposable` lib).
   */
  free(): void;
  /** Reads one whole stored chunk (edge chunks keep the full chunk shape). */
  getChunk(coords: number[], options?: ReadOptions): Promise<Chunk<ValuesOf<D>>>;
  /** Where the chunk at grid coordinates `coords` lies, and its stored shape. */
  chunkExtent(coords: number[]): {
    /** The index of the chunk's first element along each dimension. */
    origin: number[];
    /** The chunk's stored shape, in elements (it may reach past the array's edge). */
    shape: number[];
  };
  /**
   * Writes `value` to `selection` (as `get` takes it; `null` is the whole array): a typed array of
   * the kind `get` returns for the data type, of the selection's shape in C order (complex numbers
   * as interleaved pairs), or one number (bigint, boolean) for every element. String types
   * (`string`, `S<n>`, `U<n>`, a v2 `|O` of vlen-utf8) take a `string[]` or one string, and
   * `variable_length_bytes` a `Uint8Array[]` or one `Uint8Array`. Chunks the selection
   * covers in part are read, changed and written back; a chunk left holding only the fill value is
   * not stored (`writeEmptyChunks: true` stores it). The first write loads the write build. The
   * array's store must write (see `WritableStore`): else an UnsupportedError, before anything is
   * written.
   */
  set(
    selection: Selection | null | undefined,
    value: ValuesOf<D> | number | bigint | boolean | string | Uint8Array,
    options?: SetOptions,
  ): Promise<void>;
  /** Changes the shape (the same number of dimensions); chunks wholly outside it are erased. */
  resize(shape: number[]): Promise<void>;
  /** Replaces the attributes, in the store and in `attrs`. */
  setAttributes(attributes: Attributes): Promise<void>;
}

/** `set`'s options. */
export interface SetOptions {
  /** Aborting it stops the write between chunks; the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** Called after each chunk (or shard) written. */
  onProgress?: (progress: { chunksDone: number; chunksTotal: number }) => void;
  /** Store chunks that hold only the fill value (default false: they are erased). */
  writeEmptyChunks?: boolean;
  /** Chunks written at once (default 16). */
  concurrency?: number;
}

/** `create`'s options. Left out, the codecs are zarr-python 3's defaults (bytes, then zstd). */
export interface CreateOptions {
  /** Where in the store ("" for the root, the default). */
  path?: string;
  /** The array's shape, in elements. */
  shape: number[];
  /** As `arr.dtype` names it ("uint16", "float32"); for Zarr v2, also a NumPy typestr ("<u2"). */
  dtype: string;
  /** The chunk shape, in elements (with `shards`, the inner chunks'). */
  chunks: number[];
  /** Zarr v3: the shard shape; the array is sharded, its inner chunks of `chunks`. */
  shards?: number[];
  /** Zarr v3, with `shards`: where each shard's index is (default "end"). */
  indexLocation?: "start" | "end";
  /** Zarr v3: the codecs as `zarr.json` lists them (with `shards`, the inner chunks'). */
  codecs?: unknown[];
  /** Zarr v2: the compressor (`null` for none) and filters, as `.zarray` holds them. */
  compressor?: unknown;
  /** Zarr v2: the filters (`null` for none), as `.zarray` holds them. */
  filters?: unknown[] | null;
  /** The fill value (default: the type's zero); NaN and the infinities as numbers. */
  fillValue?: number | bigint | boolean | string | [number, number];
  /** The array's attributes (default: none). */
  attributes?: Attributes;
  /**
   * A name per dimension: v3's `dimension_names` (`null` for a dimension without one); for v2,
   * xarray's `_ARRAY_DIMENSIONS` attribute, which needs a name for every dimension.
   */
  dimensionNames?: (string | null)[];
  /** 3 (the default) or 2. */
  zarrFormat?: 2 | 3;
  /** Zarr v2: "C" (the default) or "F". */
  order?: "C" | "F";
  /** Zarr v2: "." (the default) or "/". */
  dimensionSeparator?: "." | "/";
  /** Zarr v3: "/" (the default) or ".". */
  chunkKeySeparator?: "." | "/";
  /** Replace a node already at the path, with everything below it (default false: an error). */
  overwrite?: boolean;
}

/**
 * Creates an array in a store that writes (a `WritableStore`, or a `FetchStore` made with
 * `writable: true`; another is an `UnsupportedError`); resolves to it, writable.
 */
export function create(
  store: WritableStore | FetchStore,
  options: CreateOptions,
): Promise<ZarrArray>;

/** Creates a group in a store that writes. */
export function createGroup(
  store: WritableStore | FetchStore,
  options?: { path?: string; attributes?: Attributes; zarrFormat?: 2 | 3; overwrite?: boolean },
): Promise<Group>;

/** Erases the node at `path` (default: the root) and everything below it. */
export function erase(store: WritableStore | FetchStore, path?: string): Promise<void>;

/**
 * Writes consolidated metadata for the hierarchy at `path` (default: the root) as zarr-python
 * does (v3: `consolidated_metadata` in the group's `zarr.json`; v2: `.zmetadata`), found by
 * listing the store.
 */
export function consolidate(store: WritableStore | FetchStore, path?: string): Promise<void>;

/** A group's direct child (see Group.children). */
export interface Child {
  /** The child's name in the group: the last segment of `path`. */
  name: string;
  /** Path from the hierarchy's root. */
  path: string;
  /** Whether the child is an array or a group. */
  kind: "array" | "group";
}

/** A group: a node that holds arrays and other groups, and attributes. */
export class Group {
  /** Replaces the attributes, in the store and in `attrs`. */
  setAttributes(attributes: Attributes): Promise<void>;
  /** Always "group" (a ZarrArray's is "array"). */
  readonly kind: "group";
  /** Path of the node in its hierarchy ("" for the root). */
  readonly path: string;
  /** The format the node's metadata is written in. */
  readonly zarrFormat: 2 | 3;
  /** The group's attributes. */
  readonly attrs: Attributes;
  /** Direct children, where the hierarchy lists them (consolidated metadata); else `null`. */
  readonly children: Child[] | null;
  /** Releases the group's memory in the module now (see ZarrArray.free). */
  free(): void;
  /**
   * Opens a node below this group (no request when consolidated metadata lists it; a v2 group's
   * children are looked for as v2 nodes only). With `kind`, a node of the other kind is a
   * NotFoundError.
   */
  open(path: string, options: GroupOpenOptions & { kind: "array" }): Promise<ZarrArray>;
  open(path: string, options: GroupOpenOptions & { kind: "group" }): Promise<Group>;
  open(path: string, options?: GroupOpenOptions): Promise<ZarrArray | Group>;
}

/** Options of `group.open(path, options)`. */
export interface GroupOpenOptions {
  /** The kind of node expected: the promise resolves to one, or rejects with a NotFoundError. */
  kind?: "array" | "group";
  /** Aborting it stops waiting for the node; the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/**
 * open()'s options. A key not named here is refused with a TypeError naming it; a value of the
 * wrong type is a TypeError, one out of range a RangeError, each naming the option.
 */
export interface OpenOptions {
  /**
   * The kind of node expected: with `"array"` the promise resolves to a ZarrArray (and in
   * TypeScript is typed so), with `"group"` to a Group; a node of the other kind is a
   * NotFoundError that says what is there (a group's children, where it knows them).
   */
  kind?: "array" | "group";
  /**
   * Path of the node inside the hierarchy; default the root. Normalised as Zarr v2 says
   * (backslashes are slashes, leading, trailing and repeated slashes dropped); "." and ".."
   * segments are refused.
   */
  path?: string;
  /**
   * The node's format. Default: `zarr.json` (v3) first, then `.zarray` with `.zattrs`, then
   * `.zgroup` with `.zmetadata` (v2), then a Zarr v1 array's `meta` with `attrs`. `2` skips
   * `zarr.json`; `3` and `1` look for nothing else.
   */
  zarrFormat?: 1 | 2 | 3;
  /**
   * `true`: open `path` from the consolidated metadata at the root of the hierarchy (v2's
   * `.zmetadata`, else the v3 root's `zarr.json`): one request, and none for the nodes below.
   * `false`: never read `.zmetadata`. Default: a v2 group uses its `.zmetadata` where it has one.
   */
  consolidated?: boolean;
  /**
   * Bytes of decoded chunks (and inner chunks of shards) an array keeps for later reads, and
   * arrays opened through a group (default 0: none). Re-reading kept chunks costs no request
   * and no decoding.
   */
  chunkCacheSize?: number;
  /** Aborting it cancels the opening's requests; the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** Bounds on what reads of this node, and of nodes opened through it, may cost. */
  limits?: Limits;
  /**
   * Read through workers: a `WorkerPool`, or a number n for a pool of n shared by every open()
   * that asks for n. The node is opened on the main thread too (its metadata is there at once);
   * each `get` is split into boxes of whole chunks that the workers fetch, decode and assemble,
   * and the main thread only copies finished rows into place. Results, errors, `signal`,
   * `onProgress` and `out` behave as without workers. Each worker opens the node itself (one
   * metadata request per worker) and keeps its own caches. Store objects (MemoryStore,
   * FileSystemStore, your own) are read on the main thread for the workers; a FetchStore with a
   * `fetch` function cannot be sent to workers and is refused with an `UnsupportedError`.
   */
  workers?: number | WorkerPool;
  /**
   * With `workers: n`, the URL of the worker script (`zarr-wasm/worker`) where a bundler does not
   * bundle it by itself (see WorkerPoolOptions.url): the pool of n is shared by every open() that
   * asks for n workers of this script.
   */
  workerUrl?: string | URL;
}

/** Options of `new WorkerPool(size, options)`. */
export interface WorkerPoolOptions {
  /**
   * The worker script (`zarr-wasm/worker`), where it is not beside the package's `index.js` (or
   * the bundle): Vite, webpack 5 and Parcel bundle it by themselves; with Rollup and esbuild it
   * is a second entry point named `worker` (README, "Bundlers"), found without a URL when it is
   * beside the bundle. Default: `worker.js` beside `index.js`.
   */
  url?: string | URL;
  /**
   * A read whose result is smaller than this many bytes is not split: one worker reads it whole,
   * the others take the next reads (default 1 MiB). Split, a small read costs more requests than
   * it saves time: each worker asks for its own share, and within a shard for the shard's index.
   */
  splitBytes?: number;
  /**
   * Reads asked for before any worker is ready (its code loaded, the module instantiated) are
   * read on the main thread, as without workers, and the workers start once the first view has
   * been read (the reads asked for before the first of them settled), so that starting them
   * (each downloads its code) never delays it; from the first ready worker on, reads go to the
   * workers. A worker script that cannot be loaded is then reported by the reads after the first
   * (a `WorkerError`), not by the first.
   * Default false: the workers start at the first open() that names the pool, and reads wait for
   * them.
   */
  mainThreadWhileStarting?: boolean;
}

/**
 * Workers (Web Workers in browsers, `worker_threads` in Node) that fetch and decode for the main
 * thread, each with its own instance of the module. Started by the first open() that names the
 * pool, by `ready()`, or with `mainThreadWhileStarting` once the first view through them has been
 * read on the main thread; in Node, idle workers do not keep the process alive.
 */
export class WorkerPool {
  /** `size` defaults to `navigator.hardwareConcurrency` (at least 1). */
  constructor(size?: number, options?: WorkerPoolOptions);
  /** The number of workers. */
  readonly size: number;
  /**
   * Starts the workers, if they have not started, and resolves once each has its module
   * instantiated: from then on every read goes to them (see `mainThreadWhileStarting`).
   */
  ready(): Promise<void>;
  /** Stops every worker; reads in progress reject with a `ZarrError`, and the pool cannot be used again. */
  terminate(): void;
}

/** Options of every read. */
export interface ReadOptions {
  /** Aborting it cancels the read's pending requests; the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/** How far a read has got, as `onProgress` is told after each chunk. */
export interface Progress {
  /**
   * Chunks (shards, for a sharded array) read and in place. Through workers: chunks of the grid
   * the read was split along (inner chunks where a few shards were split between workers).
   */
  chunksDone: number;
  /** Chunks the read touches. */
  chunksTotal: number;
  /** Bytes the store delivered for this read so far. */
  bytesFetched: number;
  /** Requests this read made of the store so far (ranges merged into one request count once). */
  requests: number;
}

/** Options of `get`. */
export interface GetOptions extends ReadOptions {
  /** Chunks fetched and decoded at once (default 64); through workers, per part of the read. */
  concurrency?: number;
  /** Called as each chunk is in place. */
  onProgress?: (progress: Progress) => void;
  /**
   * A typed array of the result's type and length to write into (numeric types only): the
   * result's `data` is then this array, and no new one is made.
   */
  out?: TypedArray;
  /**
   * For the narrow types (`bfloat16`, `float8_*`, `float6_*`, `float4_e2m1fn`, `int4`, `int2`,
   * `uint4`, `uint2`, `complex_*`): their stored bit patterns instead of their values, as a
   * Uint16Array for bfloat16 and a Uint8Array (one value per byte, in its low bits) for the
   * others. No effect on other types.
   */
  bits?: boolean;
  /** The most chunks this read may touch (default: the node's `limits.maxChunksPerRead`). */
  maxChunks?: number;
  /** The most bytes this read's result may have (default: the node's `limits.maxBytesPerRead`). */
  maxBytes?: number;
}

/** Options of `iterate`. */
export interface IterateOptions extends ReadOptions {
  /** Chunks read ahead of the one the loop is at (default 4). */
  concurrency?: number;
}

/** One chunk's part of a selection (see `iterate`). */
export interface ChunkPart<T extends Values = Values> extends Chunk<T> {
  /** The chunk's grid coordinates. */
  coords: number[];
  /** Where the part starts in the whole selection's result. */
  origin: number[];
}

/** Options of `bytesDecoder`. */
export interface BytesDecoderOptions {
  /** The chunks' data type (a v3 name): numcodecs' shuffle takes its element size by default. */
  dataType?: string;
  /** The most bytes a chunk may decode to (default: `limits.maxDecodedChunkBytes`'s default). */
  maxBytes?: number;
}

/** One bytes-to-bytes codec's decoder, for a pipeline of the caller's own. */
export interface BytesDecoder {
  /** The codec's name, as `codec.name` gave it. */
  readonly name: string;
  /** Decodes one chunk's bytes; rejects with a CodecError naming the codec and `where`. */
  decode(bytes: Uint8Array | ArrayBuffer, where?: string): Promise<Uint8Array>;
  /** The encoded size of `decodedSize` bytes where the codec fixes it (checksums), else undefined. */
  encodedSize(decodedSize: number): number | undefined;
}

/**
 * A decoder of the bytes-to-bytes codec `codec` (its v3 metadata, e.g. `{ name: "zstd",
 * configuration: { level: 3 } }`; zarr-wasm/zarrita's `codecNames` lists the names), for
 * pipelines other than zarr-wasm's (zarrita.js's: see zarr-wasm/zarrita). Rejects with a
 * MetadataError for a configuration it refuses, an UnsupportedError for a name it does not know.
 */
export function bytesDecoder(
  codec: { name: string; configuration?: Record<string, unknown> },
  options?: BytesDecoderOptions,
): Promise<BytesDecoder>;

/**
 * The module's memory: `wasmBytes` is the size of its WebAssembly memory (0 before the first
 * open()); it grows to the largest read's needs and is reused. `heapBytes` is the part of it in
 * use now (allocated and not freed). WebAssembly memory cannot shrink: once the module has been
 * idle for 2 s with 128 MiB or more of memory, three quarters of it free, the instance is replaced
 * by a fresh one (see `releaseMemory`).
 */
export function memoryUsage(): {
  /** Bytes of the module's WebAssembly memory (0 before the first open()). */
  wasmBytes: number;
  /** Bytes of that memory in use now (allocated and not freed). */
  heapBytes: number;
};

/**
 * Downloads, compiles and starts the WebAssembly module now. A page does not need to call it: the
 * download starts as zarr-wasm is imported, and the first `open()` waits for it. Call it to start
 * sooner (before the page's other imports and work), or to learn early that the module cannot be
 * loaded: rejects with a `ZarrError` naming the file's URL.
 *
 * The module comes in two builds: one that reads Zarr written with the codecs images use
 * (`zarr_wasm_bg.wasm`), and the full one that also has numcodecs' filters and object codecs, the
 * registry's array codecs, Zarr Vectors, kerchunk references and Icechunk
 * (`zarr_wasm_full_bg.wasm`, larger), which replaces the first at the first `openVectors()`,
 * `open()` of a `ReferenceStore` or `IcechunkStore`, or `open()` of an array with a codec only
 * the full build has (nodes already open move to it by themselves). A page that reads those from the
 * start calls `preload({ full: true })` (or `{ vectors: true }`, the same) in its top-level code,
 * so that it downloads only that one.
 */
export function preload(options?: {
  full?: boolean;
  vectors?: boolean;
  /** Load the write build (the full build and the writer) now, rather than at the first write. */
  write?: boolean;
}): Promise<void>;

/**
 * Gives the module's memory back now: replaces its instance by a fresh one, unless a call is in
 * flight (then returns false and does nothing). Nodes and Zarr Vectors stores opened before stay
 * usable: each opens itself again in the new instance (a metadata request; reads wait for it),
 * and chunk caches start empty. Done on its own once the module is idle after a large read; call
 * it where a page knows better, for example when it is hidden.
 */
export function releaseMemory(): boolean;

/**
 * Opens a node of a hierarchy at a URL or in a store. Rejects with a ZarrError subclass
 * (NotFoundError, MetadataError, UnsupportedError, CodecError, StoreError, SelectionError,
 * AbortError) whose message names the URL or key; options it does not take with a TypeError or
 * RangeError naming the option. With `kind`, resolves to that kind of node (typed so).
 */
export function open(
  location: string | URL | FetchStore | ZipStore | ReferenceStore | IcechunkStore | Store,
  options: OpenOptions & { kind: "array" },
): Promise<ZarrArray>;
export function open(
  location: string | URL | FetchStore | ZipStore | ReferenceStore | IcechunkStore | Store,
  options: OpenOptions & { kind: "group" },
): Promise<Group>;
export function open(
  location: string | URL | FetchStore | ZipStore | ReferenceStore | IcechunkStore | Store,
  options?: OpenOptions,
): Promise<ZarrArray | Group>;

/** A spatial chunk of a Zarr Vectors level. */
export interface VectorChunk {
  /** `rows` rows of `ndim` values, in the level's vertex type (BigInts for 64-bit integers). */
  positions:
    | Float32Array
    | Float64Array
    | Int32Array
    | Uint32Array
    | Int16Array
    | Uint16Array
    | Int8Array
    | Uint8Array
    | BigInt64Array
    | BigUint64Array;
  /** The number of rows (vertices) in the chunk. */
  rows: number;
  /** The chunk's fragments: a run of rows, or the rows listed. */
  fragments: Array<
    | {
        /** The fragment's first row. */
        start: number;
        /** The number of rows in the fragment. */
        count: number;
      }
    | {
        /** The fragment's rows, by number. */
        rows: number[];
      }
  >;
  /** The per-vertex attributes asked for by name: `width` values a vertex, row for row. */
  attributes: Record<
    string,
    {
      /** The attribute's values, `width` a vertex, in its own type. */
      values: VectorChunk["positions"];
      /** Values a vertex. */
      width: number;
    }
  >;
}

/** Values of one kind, `width` a row (a vertex's, a link's), row for row. */
export interface VectorColumn {
  /** The values, row after row, in their own type (BigInts for 64-bit integers). */
  values: VectorChunk["positions"];
  /** Values a row. */
  width: number;
}

/** What `select` reads (see Vectors.select). */
export interface VectorQuery {
  /** `[min, max]` in world units; without it (or null), the whole level. */
  bbox?: [number[], number[]] | null;
  /** Per-vertex attributes to read, by name (the store does not list them). */
  attributes?: string[];
  /** Per-link attributes to read, by name. */
  linkAttributes?: string[];
  /** Each vertex's object id (from the object manifests). */
  objectIds?: boolean;
}

/** A level's geometry (see Vectors.select). Vertices are numbered chunk after chunk. */
export interface VectorGeometry {
  /** `rows` rows of `ndim` values, in the level's vertex type. */
  positions: VectorChunk["positions"];
  /** The number of vertices read. */
  rows: number;
  /** The chunks read. */
  chunks: number[][];
  /** The per-vertex attributes asked for, by name, row for row with the vertices. */
  attributes: Record<string, VectorColumn>;
  /** Each vertex's object (the first that names it), -1 for none: with `objectIds: true`. */
  objectIds?: Float64Array;
  /** Where the level has links: `width` vertex indices a link, in the order written. */
  links?: {
    /** Vertex indices a link (2 for an edge, 3 for a triangle). */
    width: number;
    /** The links' vertex indices, `width` a link, link after link. */
    indices: Uint32Array;
  };
  /** `links.indices` of a graph or skeleton (pairs; a skeleton's are (child, parent)). */
  edges?: Uint32Array;
  /** `links.indices` of a mesh (triangles, with their winding). */
  faces?: Uint32Array;
  /** Where the level has links: the per-link attributes asked for, by name, row for row. */
  linkAttributes?: Record<string, VectorColumn>;
}

/** One level of a Zarr Vectors store. */
export interface VectorLevel {
  /** The vertices' type, e.g. "float32". */
  readonly dtype: DataType;
  /** The occupied spatial chunks (coordinates may be negative). */
  readonly chunks: number[][];
  /** How many objects the level indexes (0 without an object index). */
  readonly objects: number;
  /** `attributes`: names of per-vertex attributes to read with it (the store does not list them). */
  readChunk(chunk: number[], attributes?: string[]): Promise<VectorChunk | null>;
  /** The occupied chunks whose boxes meet `[lo, hi]` (world units). */
  chunksIn(lo: number[], hi: number[]): number[][];
  /** The level's geometry in one read (see Vectors.select). */
  select(query?: VectorQuery): Promise<VectorGeometry>;
  /** Object `id`'s vertices, in its manifest's order, with the per-vertex `attributes` named. */
  readObject(
    id: number,
    attributes?: string[],
  ): Promise<{
    /** The object's vertices: rows of `ndim` values, in the level's vertex type. */
    positions: VectorChunk["positions"];
    /** The per-vertex attributes asked for, by name, row for row with the vertices. */
    attributes: Record<string, VectorColumn>;
  }>;
  /** Object attribute `name`: a row per object (fill values where an object has none). */
  objectAttribute(name: string): Promise<{
    /** The attribute's values, in C order. */
    values: VectorColumn["values"];
    /** Their shape, in elements: a row per object along the first dimension. */
    shape: number[];
  }>;
  /** How many groups of objects the level has (0 without any). */
  groupCount(): Promise<number>;
  /** The ids of the objects in group `id`. */
  readGroup(id: number): Promise<Float64Array>;
}

/**
 * A Zarr Vectors (ZVF) store, as zarr-vectors 0.9 writes it: geometry chunked in space. Spatial
 * chunk `k` along an axis covers `[k * chunkShape, (k + 1) * chunkShape)` in world units.
 */
export interface Vectors {
  /** The version of zarr-vectors that wrote the store (its `zv_version`, e.g. "0.9.0"). */
  readonly version: string;
  /** The number of spatial dimensions. */
  readonly ndim: number;
  /** A spatial chunk's size along each axis, in world units. */
  readonly chunkShape: number[];
  /** `[min, max]`: the box the data lies in, in world units, as the metadata gives it. */
  readonly bounds: [number[], number[]];
  /** The kinds of geometry the store holds, as its metadata names them (e.g. "point_cloud"). */
  readonly geometryTypes: string[];
  /** The levels' paths, finest first. */
  readonly levels: string[];
  /** Level `index` (default 0, the finest), opened at the first call and kept. */
  level(index?: number): Promise<VectorLevel>;
  /**
   * One spatial chunk of `options.level` (default 0), with the per-vertex `attributes` named;
   * null where the chunk is empty.
   */
  readChunk(
    chunk: number[],
    options?: { level?: number; attributes?: string[] },
  ): Promise<VectorChunk | null>;
  /**
   * A level's geometry in one read: the vertices inside `bbox` (all without one) with their
   * attributes and object ids, and the links among them with theirs. Only the chunks that meet the
   * box are read, concurrently. The link arrays are found by a listing of `links/0`
   * (consolidated metadata, a store's `list()`, an HTTP server's index pages, an S3 or GCS
   * bucket's listing: see FetchStoreOptions.listing), or, where the store cannot list, by asking
   * for each array the chunks read could link through (one request each, a 404 for those not
   * there; at most 4096 for one read, remembered for the next).
   */
  select(query?: VectorQuery & { level?: number }): Promise<VectorGeometry>;
  /**
   * The links from `level` to the level `delta` away (`links/+1`: each vertex's vertex at the
   * next coarser level, as zarr-vectors' pyramid writes them; `links/-1`: the finer vertices each
   * stands for), among the vertices `select` reads of each level with the same `bbox`: pairs of
   * vertex numbers, this level's then the other's, in the order written. Links with an end
   * outside the box are left out. Null where the level has no such links.
   */
  crossLinks(query: {
    level?: number;
    delta: number;
    bbox?: [number[], number[]] | null;
  }): Promise<{
    /** 2: a link is a pair of vertex numbers. */
    width: 2;
    /** The pairs, link after link: this level's vertex, then the other level's. */
    indices: Uint32Array;
  } | null>;
  /** Object `id`'s vertices, in its manifest's order (a polyline's in its order), with attributes. */
  readObject(
    id: number,
    options?: { level?: number; attributes?: string[] },
  ): Promise<{
    /** The object's vertices: rows of `ndim` values, in the level's vertex type. */
    positions: VectorChunk["positions"];
    /** The per-vertex attributes asked for, by name, row for row with the vertices. */
    attributes: Record<string, VectorColumn>;
  }>;
  /** Object attribute `name`: a row per object (fill values where an object has none). */
  objectAttribute(
    name: string,
    options?: { level?: number },
  ): Promise<{
    /** The attribute's values, in C order. */
    values: VectorColumn["values"];
    /** Their shape, in elements: a row per object along the first dimension. */
    shape: number[];
  }>;
  /** How many groups of objects `options.level` (default 0) has (0 without any). */
  groupCount(options?: { level?: number }): Promise<number>;
  /** The ids of the objects in group `id`. */
  readGroup(id: number, options?: { level?: number }): Promise<Float64Array>;
}

/**
 * Opens a Zarr Vectors store (`options.path`: its root group, default the root). Versions other than
 * 0.9.x are refused with an `UnsupportedError`; a group without `zarr_vectors` metadata with a
 * `MetadataError`.
 */
export function openVectors(
  location: string | URL | FetchStore | ZipStore | ReferenceStore | Store,
  options?: { path?: string; signal?: AbortSignal },
): Promise<Vectors>;
