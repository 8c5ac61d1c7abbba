/** A selection along one dimension (see `slice`). */
export interface Slice {
  start: number | null;
  stop: number | null;
  step: number | null;
}

/** Per dimension: `null` for all of it, an integer to pick one index (the axis is dropped), or a slice. */
export type Selection = ReadonlyArray<number | Slice | null>;

/** `slice(stop)` or `slice(start, stop, step)`, Python style (negative bounds count from the end). */
export function slice(stop: number | null): Slice;
export function slice(start: number | null, stop: number | null, step?: number | null): Slice;

/** Zarr v3 core data type names (`r8`, `r16`, ... are raw types of that many bits). */
export type DataType =
  | "bool" | "int8" | "int16" | "int32" | "int64"
  | "uint8" | "uint16" | "uint32" | "uint64"
  | "float16" | "float32" | "float64" | "complex64" | "complex128"
  | `r${number}`;

/**
 * The typed array a data type is returned as: `bool` and `r*` as bytes (0/1, or N/8 bytes per
 * element), `float16` as a Float16Array where the runtime has one and otherwise a Float32Array of
 * the same values, `complex64`/`complex128` as interleaved (re, im) Float32Array/Float64Array.
 */
export type TypedArray =
  | Uint8Array | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint16Array | Uint32Array | BigUint64Array | Float32Array | Float64Array
  | (typeof globalThis extends { Float16Array: abstract new (...args: any) => infer F } ? F : never);

export interface Chunk<T extends TypedArray = TypedArray> {
  /** Elements in C order. */
  data: T;
  shape: number[];
  /** C-order strides, in elements. */
  stride: number[];
}

export type Attributes = Record<string, unknown>;

export interface FetchStoreOptions {
  /** Read a shard index at the end with one suffix range request (default true); false: HEAD, then a range. */
  suffixRequests?: boolean;
  /** Read HTTP 403 as a missing key (fill value), for buckets that answer 403 for missing keys. */
  treat403AsMissing?: boolean;
  /** Extra tries after a network failure or a 408/429/5xx answer, with doubling waits (default 3). */
  retries?: number;
  /** Requests in flight at once for this store (default 32); others wait their turn. */
  maxRequests?: number;
  /** Inner-chunk ranges of a shard closer than this many bytes are fetched in one request (default 4096). */
  mergeGap?: number;
  /** Shard indexes kept per array (default 4096). */
  indexCacheSize?: number;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  credentials?: "omit" | "same-origin" | "include";
  /** Used instead of the global fetch, e.g. to presign URLs. */
  fetch?: (request: Request) => Promise<Response>;
}

export class FetchStore {
  constructor(url: string | URL, options?: FetchStoreOptions);
  readonly url: string;
  readonly options: FetchStoreOptions;
}

export class ZarrArray {
  readonly kind: "array";
  /** Path of the node in its hierarchy ("" for the root). */
  readonly path: string;
  readonly zarrFormat: 3;
  readonly shape: number[];
  /** The chunk shape of a regular grid; `null` for a rectilinear grid (see `chunkExtent`). */
  readonly chunks: number[] | null;
  readonly chunkGrid: "regular" | "rectilinear";
  /** The number of chunks along each dimension that cover the array. */
  readonly gridShape: number[];
  readonly dtype: DataType;
  /**
   * `bigint` for 64-bit integer types, `boolean` for bool, `[re, im]` for complex types, a
   * Uint8Array for `r*`, else a number (NaN and infinities included).
   */
  readonly fillValue: number | bigint | boolean | [number, number] | Uint8Array;
  readonly attrs: Attributes;
  readonly dimensionNames: (string | null)[] | null;
  /** Reads a selection; no argument reads everything. Missing chunks read as the fill value. */
  get(selection?: Selection | null, options?: ReadOptions): Promise<Chunk>;
  /** Reads one whole stored chunk (edge chunks keep the full chunk shape). */
  getChunk(coords: number[], options?: ReadOptions): Promise<Chunk>;
  /** Where the chunk at grid coordinates `coords` lies, and its stored shape. */
  chunkExtent(coords: number[]): { origin: number[]; shape: number[] };
}

export interface Child {
  name: string;
  /** Path from the hierarchy's root. */
  path: string;
  kind: "array" | "group";
}

export class Group {
  readonly kind: "group";
  readonly path: string;
  readonly zarrFormat: 3;
  readonly attrs: Attributes;
  /** Direct children, where the hierarchy lists them (consolidated metadata); else `null`. */
  readonly children: Child[] | null;
  /** Opens a node below this group (no request when consolidated metadata lists it). */
  open(path: string): Promise<ZarrArray | Group>;
}

export interface OpenOptions {
  /** Path of the node inside the hierarchy; default the root. */
  path?: string;
  /** Aborting it cancels the opening's requests; the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
}

export interface ReadOptions {
  /** Aborting it cancels the read's pending requests; the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/**
 * Opens a node. Rejects with an Error whose `name` is one of NotFoundError, MetadataError,
 * UnsupportedError, CodecError, StoreError, SelectionError and whose message names the URL.
 */
export function open(location: string | URL | FetchStore, options?: OpenOptions): Promise<ZarrArray | Group>;
