/**
 * zarr-wasm as Viv's loader: an OME-Zarr multiscale image, or any array of two or more
 * dimensions, as Viv's `PixelSource`s, one per resolution level, for `MultiscaleImageLayer`,
 * `ImageLayer` and apps built on them (vizarr). Tiles are read with zarr-wasm's `get`, and
 * `deck.gl`'s aborts cancel their requests.
 *
 * ```js
 * import { MultiscaleImageLayer } from "@vivjs/layers";
 * import { openPixelSources } from "zarr-wasm/viv";
 * const { data, metadata } = await openPixelSources("https://example.org/image.ome.zarr");
 * new MultiscaleImageLayer({ loader: data, selections: [{ c: 0, z: 0 }], ... });
 * ```
 *
 * Nothing here imports Viv: the objects have the shape of `PixelSource` in `@vivjs/types`
 * (tested with Viv 0.21).
 * @module zarr-wasm/viv
 */
import type {
  Attributes,
  FetchStore,
  Group,
  OpenOptions,
  Store,
  ZarrArray,
  ZipStore,
} from "./index.js";

/**
 * What a read whose signal was aborted rejects with: the string Viv's layers take for an aborted
 * tile (`SIGNAL_ABORTED` of `@vivjs/loaders`); they draw nothing for it.
 */
export declare const SIGNAL_ABORTED: "__vivSignalAborted";

/**
 * Viv's data types, for zarr-wasm's `uint8`, `uint16`, `uint32`, `int8`, `int16`, `int32`,
 * `float32` and `float64`. Other types (64-bit integers, `bool`, `float16`, complex, strings...)
 * have none: their arrays are refused.
 */
export type VivDtype =
  | "Uint8"
  | "Uint16"
  | "Uint32"
  | "Int8"
  | "Int16"
  | "Int32"
  | "Float32"
  | "Float64";

/**
 * A plane or tile: `height` rows of `width` values, in the array's typed array (over an
 * ArrayBuffer, never a SharedArrayBuffer: the type Viv's own `PixelData` asks for).
 */
export interface PixelData {
  /** The values, row after row: `width * height` of them. */
  data:
    | InstanceType<typeof Uint8Array>
    | InstanceType<typeof Uint16Array>
    | InstanceType<typeof Uint32Array>
    | InstanceType<typeof Int8Array>
    | InstanceType<typeof Int16Array>
    | InstanceType<typeof Int32Array>
    | InstanceType<typeof Float32Array>
    | InstanceType<typeof Float64Array>;
  /** Values a row: the plane's or tile's width, in pixels. */
  width: number;
  /** The number of rows: the plane's or tile's height, in pixels. */
  height: number;
}

/**
 * An index per label for the axes before y and x (`{ c: 1, z: 4 }`; a label left out is 0), or
 * an index per axis (`[1, 4, 0, 0]`, as vizarr gives them; the entries for y and x are not
 * read). An unknown label, or an index that is not an integer within its axis, is a
 * `SelectionError`.
 */
export type PixelSelection = { [label: string]: number } | readonly number[];

/** What `getRaster` reads: a whole plane. */
export interface RasterSelection {
  /** The plane: an index per label, or per axis (see PixelSelection). */
  selection: PixelSelection;
  /** Aborting it cancels the read's requests; the read rejects with `SIGNAL_ABORTED`. */
  signal?: AbortSignal;
}

/** What `getTile` reads: tile column `x` and row `y` of a plane. */
export interface TileSelection extends RasterSelection {
  /** The tile's column, counted in tiles from the left (0 is the first). */
  x: number;
  /** The tile's row, counted in tiles from the top (0 is the first). */
  y: number;
}

/** The size of a pixel along one axis, and its unit. */
export interface PhysicalSize {
  /** The pixel's size along the axis, in `unit`s. */
  size: number;
  /**
   * As Viv's scale bar reads it: an SI symbol (`"µm"`, `"nm"`, `"m"`) for OME-NGFF's metre
   * units; angstroms become nanometres, inches, feet, yards, miles and parsecs metres. An axis
   * without a unit (or with one Viv cannot read) has no size.
   */
  unit: string;
}

/** What Viv knows of a level beyond its pixels. */
export interface PixelSourceMeta {
  /**
   * Pixel sizes by label, for the space axes of an OME-Zarr image: the level's
   * `coordinateTransformations` scale (times the multiscale's own, where it has one).
   */
  physicalSizes?: { [label: string]: PhysicalSize };
}

/** Options of `new PixelSource(array, options)`. */
export interface PixelSourceOptions {
  /**
   * A name per dimension, the last two `"y"` and `"x"` (a TypeError otherwise). Default: the
   * array's `dimensionNames`, the last two called y and x; where it has none (or they repeat),
   * `t`, `c`, `z`, `y`, `x` from the end (`dim_0`... before them).
   */
  labels?: readonly string[];
  /**
   * The side of Viv's square tiles, in pixels (a positive integer). Default: the largest power
   * of two no larger than the array's read unit (its inner chunk if sharded, else its chunk) in
   * y and x, as Viv's own loaders choose it. Other sizes are taken as given; Viv's loaders
   * always give a power of two, which is what `deck.gl`'s tile layer is made for.
   */
  tileSize?: number;
  /** `meta` as given (default `{}`). */
  meta?: PixelSourceMeta;
}

/**
 * One resolution level of an image as Viv reads it (`PixelSource` of `@vivjs/types`): its last
 * two axes are the image's rows and columns, the others are selected by label.
 *
 * Refused at construction: an array of fewer than two dimensions, of a data type Viv does not
 * draw (see `VivDtype`), or 3 or 4 pixels wide (Viv's layers would take it for interleaved RGB(A)
 * samples): an `UnsupportedError` naming the array. Levels built one by one for one layer need
 * level 0's `tileSize` each: Viv lays every level's tiles out by level 0's.
 */
export declare class PixelSource {
  constructor(array: ZarrArray, options?: PixelSourceOptions);
  /** The array read. */
  readonly array: ZarrArray;
  /** The array's shape: its length in elements along each dimension. */
  readonly shape: number[];
  /** The array's data type, as Viv names it. */
  readonly dtype: VivDtype;
  /** A name per dimension, the last two `"y"` and `"x"`. */
  readonly labels: [...string[], "y", "x"];
  /** The side of the square tiles `getTile` reads, in pixels (see PixelSourceOptions.tileSize). */
  readonly tileSize: number;
  /** What Viv knows of the level beyond its pixels: `options.meta` (default `{}`). */
  readonly meta: PixelSourceMeta;
  /**
   * A whole y-x plane. Rejects with `SIGNAL_ABORTED` once `signal` has aborted, a
   * `SelectionError` for a bad selection, and with zarr-wasm's errors for a failed read.
   */
  getRaster(selection: RasterSelection): Promise<PixelData>;
  /**
   * Tile (`x`, `y`): columns `x * tileSize` up to `(x + 1) * tileSize` and rows likewise, cut at
   * the level's right and bottom edges (edge tiles are smaller, not padded). A tile outside the
   * level rejects with a `SelectionError`; otherwise as `getRaster`.
   */
  getTile(selection: TileSelection): Promise<PixelData>;
  /**
   * What Viv's layers call with a tile's failure (a property, as they call it unbound). The
   * tile's own abort (`SIGNAL_ABORTED`), or a tile outside the level (Viv asks for those where a
   * level is a pixel smaller than half the one above, as pyramids rounded down are), is ignored;
   * any other error, another read's abort among them, is logged
   * with `console.error`, as `deck.gl` does by default. Nothing is rethrown: `deck.gl` calls it
   * where a throw would be an unhandled rejection. Assign your own to report errors elsewhere.
   */
  onTileError: (error: unknown) => void;
}

/**
 * Options of `openPixelSources`: `open`'s options (used where `source` is a location; `signal`
 * also ends the wait for the levels' metadata, which goes on unread), and these.
 */
export interface PixelSourcesOptions extends OpenOptions {
  /** Labels for every level (see `PixelSourceOptions.labels`). Default: the multiscale's axes' names, else as there. */
  labels?: readonly string[];
  /** One tile size for every level. Default: level 0's, as `PixelSourceOptions.tileSize` says. */
  tileSize?: number;
}

/** An image's levels, finest first, and its metadata. */
export interface PixelSources {
  /** The levels, in the order of the multiscale's `datasets`: Viv's `loader`. */
  data: PixelSource[];
  /**
   * The image's OME-Zarr attributes (`multiscales`, `omero`...): NGFF 0.5's `ome` object, or
   * the group's attributes for earlier versions, as Viv's `loadOmeZarr` gives them. For an
   * array, its attributes.
   */
  metadata: Attributes;
}

/**
 * Viv's PixelSources for `source`: a group holding an OME-Zarr multiscale image (NGFF 0.4 and
 * earlier: `multiscales` in its attributes; 0.5: under `ome`), an array of two or more
 * dimensions (one level), or a location `open` takes (a URL, a store), opened with `options`.
 *
 * The first multiscale's `datasets` are the levels. Viv takes level k to be level 0 with y and
 * x divided by 2^k (rounded either way) and the other axes whole, and draws all levels with one
 * data type: levels that differ are refused with an `UnsupportedError` saying which (open their
 * arrays and build `PixelSource`s for the ones to use). An image whose last axis has 3 or 4
 * pixels at level 0 is refused too (an `UnsupportedError`): Viv's layers take such an axis for
 * interleaved RGB(A) samples, which this adapter does not read; a coarser level that narrow ends the
 * pyramid above it (Viv draws any number of levels). A group without multiscales is a
 * `MetadataError`.
 */
export declare function openPixelSources(
  source: Group | ZarrArray | string | URL | FetchStore | ZipStore | Store,
  options?: PixelSourcesOptions,
): Promise<PixelSources>;
