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

/** Zarr v3 core data type names. */
export type DataType =
  | "bool" | "int8" | "int16" | "int32" | "int64"
  | "uint8" | "uint16" | "uint32" | "uint64" | "float32" | "float64";

/** The typed array a data type is returned as (`bool` as 0/1 bytes). */
export type TypedArray =
  | Uint8Array | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint16Array | Uint32Array | BigUint64Array | Float32Array | Float64Array;

export interface Chunk<T extends TypedArray = TypedArray> {
  /** Elements in C order. */
  data: T;
  shape: number[];
  /** C-order strides, in elements. */
  stride: number[];
}

export type Attributes = Record<string, unknown>;

export class FetchStore {
  constructor(url: string | URL);
  readonly url: string;
}

export class ZarrArray {
  readonly kind: "array";
  /** Path of the node in its hierarchy ("" for the root). */
  readonly path: string;
  readonly zarrFormat: 3;
  readonly shape: number[];
  /** The regular chunk shape. */
  readonly chunks: number[];
  readonly dtype: DataType;
  /** `bigint` for 64-bit integer types, `boolean` for bool, else a number (NaN and infinities included). */
  readonly fillValue: number | bigint | boolean;
  readonly attrs: Attributes;
  readonly dimensionNames: (string | null)[] | null;
  /** Reads a selection; no argument reads everything. Missing chunks read as the fill value. */
  get(selection?: Selection): Promise<Chunk>;
  /** Reads one whole stored chunk (edge chunks keep the full chunk shape). */
  getChunk(coords: number[]): Promise<Chunk>;
}

export class Group {
  readonly kind: "group";
  readonly path: string;
  readonly zarrFormat: 3;
  readonly attrs: Attributes;
  /** Opens a node below this group. */
  open(path: string): Promise<ZarrArray | Group>;
}

export interface OpenOptions {
  /** Path of the node inside the hierarchy; default the root. */
  path?: string;
}

/**
 * Opens a node. Rejects with an Error whose `name` is one of NotFoundError, MetadataError,
 * UnsupportedError, CodecError, StoreError, SelectionError and whose message names the URL.
 */
export function open(location: string | URL | FetchStore, options?: OpenOptions): Promise<ZarrArray | Group>;
