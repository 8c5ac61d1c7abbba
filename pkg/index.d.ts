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

/**
 * Data type names: the Zarr v3 core names (`r8`, `r16`, ... are raw types of that many bits, also
 * Zarr v2's `|V<n>`), the variable-length `string` and `variable_length_bytes` (v2 object arrays),
 * and for types only Zarr v2 has, NumPy's: `datetime64[unit]` and `timedelta64[unit]`
 * (`M8`/`m8`), `S<n>` byte strings, `U<n>` Unicode strings and `structured` records.
 */
export type DataType =
  | "bool" | "int8" | "int16" | "int32" | "int64"
  | "uint8" | "uint16" | "uint32" | "uint64"
  | "float16" | "float32" | "float64" | "complex64" | "complex128"
  | `r${number}`
  | "string" | "variable_length_bytes"
  | `datetime64[${string}]` | `timedelta64[${string}]`
  | `S${number}` | `U${number}`
  | "structured";

/**
 * The typed array a data type is returned as: `bool` and `r*` as bytes (0/1, or N/8 bytes per
 * element), `float16` as a Float16Array where the runtime has one and otherwise a Float32Array of
 * the same values, `complex64`/`complex128` as interleaved (re, im) Float32Array/Float64Array.
 */
export type TypedArray =
  | Uint8Array | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint16Array | Uint32Array | BigUint64Array | Float32Array | Float64Array
  | (typeof globalThis extends { Float16Array: abstract new (...args: any) => infer F } ? F : never);

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
 * `variable_length_bytes`, and an object of fields for `structured`.
 */
export type Values = TypedArray | string[] | Uint8Array[] | StructuredValues;

export interface Chunk<T extends Values = Values> {
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

/** One field of a structured type. */
export interface Field {
  name: string;
  /** Bytes from the start of the record. */
  offset: number;
  /** Subarray shape; `[]` for one value per record. */
  shape: number[];
  /** The field's type; "structured" for a nested record, whose fields are in `fields`. */
  dtype: DataType;
  fields?: Field[];
}

export class ZarrArray {
  readonly kind: "array";
  /** Path of the node in its hierarchy ("" for the root). */
  readonly path: string;
  /** The format the node's metadata is written in. */
  readonly zarrFormat: 2 | 3;
  readonly shape: number[];
  /** The chunk shape of a regular grid; `null` for a rectilinear grid (see `chunkExtent`). */
  readonly chunks: number[] | null;
  readonly chunkGrid: "regular" | "rectilinear";
  /** The number of chunks along each dimension that cover the array. */
  readonly gridShape: number[];
  readonly dtype: DataType;
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
  readonly zarrFormat: 2 | 3;
  readonly attrs: Attributes;
  /** Direct children, where the hierarchy lists them (consolidated metadata); else `null`. */
  readonly children: Child[] | null;
  /**
   * Opens a node below this group (no request when consolidated metadata lists it; a v2 group's
   * children are looked for as v2 nodes only).
   */
  open(path: string): Promise<ZarrArray | Group>;
}

export interface OpenOptions {
  /**
   * Path of the node inside the hierarchy; default the root. Normalised as Zarr v2 says
   * (backslashes are slashes, leading, trailing and repeated slashes dropped); "." and ".."
   * segments are refused.
   */
  path?: string;
  /**
   * The node's format. Default: `zarr.json` (v3) first, then `.zarray` with `.zattrs`, then
   * `.zgroup` with `.zmetadata` (v2). `2` skips `zarr.json`; `3` looks for nothing else.
   */
  zarrFormat?: 2 | 3;
  /**
   * `true`: open `path` from the consolidated metadata at the root of the hierarchy (v2's
   * `.zmetadata`, else the v3 root's `zarr.json`): one request, and none for the nodes below.
   * `false`: never read `.zmetadata`. Default: a v2 group uses its `.zmetadata` where it has one.
   */
  consolidated?: boolean;
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
