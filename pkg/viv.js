// zarr-wasm as Viv's loader (see viv.d.ts): an OME-Zarr image, or any array of two or more
// dimensions, as Viv's PixelSources, one per resolution level.
//
//   import { openPixelSources } from "zarr-wasm/viv";
//   const { data, metadata } = await openPixelSources(url);
//   new MultiscaleImageLayer({ loader: data, selections: [{ c: 0, z: 0 }], ... });
//
// Nothing here imports Viv: a PixelSource is an object of the shape Viv's layers read
// (@vivjs/types' PixelSource), and reads go through zarr-wasm's `get`, with Viv's AbortSignal.
import { SelectionError, UnsupportedError, open, slice } from "./index.js";
import { openImage } from "./ome.js";
import { isArrayNode, isGroupNode, nodeName } from "./nodes.js";

/**
 * What Viv's layers take for an aborted tile (`SIGNAL_ABORTED` of @vivjs/loaders): a read whose
 * signal was aborted rejects with this string, and the layer draws nothing for that tile.
 */
export const SIGNAL_ABORTED = "__vivSignalAborted";

// zarr-wasm's data types Viv draws, and Viv's names for them.
const DTYPES = {
  uint8: "Uint8",
  uint16: "Uint16",
  uint32: "Uint32",
  int8: "Int8",
  int16: "Int16",
  int32: "Int32",
  float32: "Float32",
  float64: "Float64",
};

// Tiles a read refused for lying outside the level: Viv asks for them where a level is a little
// smaller than half the one above (a pyramid whose sizes were rounded down), and they are no error.
const outsideTiles = new WeakSet();

/** Viv's default names: the last two axes are y and x; before them z, c and t, then dim_<i>. */
function defaultLabels(rank) {
  const named = ["t", "c", "z", "y", "x"].slice(-rank);
  return [...Array.from({ length: rank - named.length }, (_, i) => `dim_${i}`), ...named];
}

/**
 * Labels from names found in metadata (OME-Zarr axes, dimension_names), the last two called y
 * and x whatever they were named (Viv's layers take them as the image's rows and columns); the
 * defaults where names are missing or would repeat.
 */
function labelsFrom(names, rank) {
  if (!Array.isArray(names) || names.length !== rank) return null;
  const labels = [...names.slice(0, -2), "y", "x"];
  const ok = labels.every((l) => typeof l === "string" && l !== "");
  return ok && new Set(labels).size === rank ? labels : null;
}

/** Checks labels given by the caller: one unique string per dimension, the last two y and x. */
function checkLabels(labels, rank, what) {
  if (
    !Array.isArray(labels) ||
    labels.length !== rank ||
    !labels.every((l) => typeof l === "string" && l !== "") ||
    new Set(labels).size !== rank ||
    labels[rank - 2] !== "y" ||
    labels[rank - 1] !== "x"
  )
    throw new TypeError(
      `${what}: labels must be ${rank} different names, the last two "y" and "x", not ${JSON.stringify(labels)?.slice(0, 120)}`,
    );
  return [...labels];
}

/** The largest power of two no larger than the array's read unit (inner chunk, else chunk) in y and x. */
function guessTileSize(array) {
  const unit =
    array.innerChunks ?? array.chunks ?? array.chunkExtent(array.shape.map(() => 0)).shape;
  const side = Math.max(1, Math.min(...unit.slice(-2)));
  return 2 ** Math.floor(Math.log2(side));
}

/**
 * One resolution level of an image, as Viv's layers read it (`PixelSource` of @vivjs/types):
 * tiles and whole planes of a zarr-wasm array. See viv.d.ts.
 */
export class PixelSource {
  #labelIndex;

  constructor(array, options = {}) {
    if (!isArrayNode(array))
      throw new TypeError("PixelSource needs a zarr-wasm array (open() it first)");
    if (options !== undefined && options !== null && typeof options !== "object")
      throw new TypeError("PixelSource options must be an object");
    const what = `the array at ${nodeName(array)}`;
    const rank = array.shape.length;
    if (rank < 2)
      throw new UnsupportedError(
        `Viv draws arrays of two or more dimensions; ${what} has ${rank} (shape ${JSON.stringify(array.shape)})`,
      );
    const dtype = DTYPES[array.dtype];
    if (!dtype)
      throw new UnsupportedError(
        `Viv cannot draw ${what}: its data type is ${array.dtype}, and Viv draws only ${Object.keys(DTYPES).join(", ")}`,
      );
    const last = array.shape[rank - 1];
    if (last === 3 || last === 4)
      throw new UnsupportedError(
        `${what} is ${last} pixels wide (shape ${JSON.stringify(array.shape)}): Viv's layers take a last axis of 3 or 4 for interleaved RGB(A) samples, which zarr-wasm/viv does not read`,
      );
    const { labels, tileSize, meta } = options ?? {};
    this.array = array;
    this.shape = [...array.shape];
    this.dtype = dtype;
    this.labels =
      labels === undefined || labels === null
        ? (labelsFrom(array.dimensionNames, rank) ?? defaultLabels(rank))
        : checkLabels(labels, rank, what);
    if (
      tileSize !== undefined &&
      tileSize !== null &&
      !(Number.isSafeInteger(tileSize) && tileSize > 0)
    )
      throw new TypeError(
        `${what}: tileSize must be a positive integer, not ${JSON.stringify(tileSize)}`,
      );
    this.tileSize = tileSize ?? guessTileSize(array);
    if (meta !== undefined && meta !== null && typeof meta !== "object")
      throw new TypeError(`${what}: meta must be an object`);
    this.meta = meta ?? {};
    this.#labelIndex = new Map(this.labels.slice(0, -2).map((label, i) => [label, i]));
    // A property, not a method: Viv hands it to deck.gl's tile layer unbound. Deck calls it for a
    // tile whose read rejected without deck having aborted it; what it throws would be an
    // unhandled rejection, so nothing is rethrown. A tile's own abort and tiles outside the level
    // are expected and ignored; anything else is a real failure (a server error, a corrupt
    // chunk, a bad selection) and is logged, as deck.gl's own default does.
    this.onTileError = (error) => {
      // A read's own abort is SIGNAL_ABORTED, which Viv's layer takes before this; an
      // AbortError here is another read's abort reaching this one, and is logged.
      if (error === SIGNAL_ABORTED || outsideTiles.has(error)) return;
      console.error(error);
    };
  }

  /** A whole y-x plane: `selection` gives an index for the other axes by label (default 0). */
  async getRaster({ selection, signal } = {}) {
    const sel = this.#select(selection);
    const { data, shape } = await this.#read(sel, signal);
    const [height, width] = shape;
    return { data, width, height };
  }

  /** Tile (x, y), x its column and y its row, clipped at the level's right and bottom edges. */
  async getTile({ x, y, selection, signal } = {}) {
    const sel = this.#select(selection);
    const rank = this.shape.length;
    const [height, width] = this.shape.slice(-2);
    const size = this.tileSize;
    const [columns, rows] = [Math.ceil(width / size), Math.ceil(height / size)];
    if (typeof x !== "number" || typeof y !== "number") {
      throw new TypeError(
        `getTile's x and y must be numbers (a tile's column and row), not ${typeof x === "string" ? JSON.stringify(x) : String(x)} and ${typeof y === "string" ? JSON.stringify(y) : String(y)}`,
      );
    }
    if (
      !Number.isInteger(x) ||
      !Number.isInteger(y) ||
      x < 0 ||
      y < 0 ||
      x >= columns ||
      y >= rows
    ) {
      const error = new SelectionError(
        `tile (x ${x}, y ${y}) is outside the array at ${nodeName(this.array)}: its ${width} x ${height} pixels make ${columns} x ${rows} tiles of ${size}`,
      );
      outsideTiles.add(error);
      throw error;
    }
    sel[rank - 2] = slice(y * size, Math.min((y + 1) * size, height));
    sel[rank - 1] = slice(x * size, Math.min((x + 1) * size, width));
    const { data, shape } = await this.#read(sel, signal);
    return { data, width: shape[1], height: shape[0] };
  }

  /**
   * zarr-wasm's selection for a Viv selection, y and x whole: an object of indexes by label
   * (labels left out: 0), or an index per axis (vizarr's form, as Viv's own loader takes it; the
   * entries for y and x are not read).
   */
  #select(selection) {
    if (selection === undefined || selection === null) selection = {};
    const rank = this.shape.length;
    const labels = this.labels.slice(0, -2);
    let entries;
    if (Array.isArray(selection) && selection.length === rank)
      entries = labels.map((label, axis) => [label, selection[axis]]);
    else if (typeof selection === "object" && !Array.isArray(selection))
      entries = Object.entries(selection);
    else
      throw new TypeError(
        `a Viv selection is an object of indexes by label (${labels.join(", ") || "none here"}) or an index per axis (${rank}), not ${JSON.stringify(selection)?.slice(0, 80)}`,
      );
    const sel = this.shape.map((_, axis) => (axis < rank - 2 ? 0 : null));
    for (const [label, index] of entries) {
      const axis = this.#labelIndex.get(label);
      if (axis === undefined)
        throw new SelectionError(
          `the array at ${nodeName(this.array)} has no axis "${label}" to select: its labels are ${this.labels.join(", ")} (y and x are the tile's)`,
        );
      if (!Number.isInteger(index) || index < 0 || index >= this.shape[axis])
        throw new SelectionError(
          `${label} = ${JSON.stringify(index)} for the array at ${nodeName(this.array)}: an index along ${label} is an integer from 0 to ${this.shape[axis] - 1}`,
        );
      sel[axis] = index;
    }
    return sel;
  }

  /** Reads with zarr-wasm; once `signal` has aborted, rejects as Viv's layers expect. */
  async #read(selection, signal) {
    try {
      return await this.array.get(selection, { signal });
    } catch (error) {
      // A string, not an Error: Viv's layers compare what they catch with this very string.
      if (signal?.aborted) throw SIGNAL_ABORTED;
      throw error;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// OME-Zarr multiscale images (read by zarr-wasm/ome).

// OME-NGFF's space units as the symbols Viv's scale bar reads ("µm": its SI prefix and "m");
// angstroms become tenths of nanometres, and the other units metres.
const SI_PREFIX = {
  yotta: "Y",
  zetta: "Z",
  exa: "E",
  peta: "P",
  tera: "T",
  giga: "G",
  mega: "M",
  kilo: "k",
  hecto: "h",
  deca: "da",
  "": "",
  deci: "d",
  centi: "c",
  milli: "m",
  micro: "µ",
  nano: "n",
  pico: "p",
  femto: "f",
  atto: "a",
  zepto: "z",
  yocto: "y",
};
// OME-NGFF's other length units, in metres (Viv's scale bar knows only SI prefixes of "m").
const IN_METRES = {
  inch: 0.0254,
  foot: 0.3048,
  yard: 0.9144,
  mile: 1609.344,
  parsec: 3.085677581491367e16,
};
/** A pixel's size along an axis in a unit Viv's scale bar reads, or null for an unknown unit. */
function physicalSize(size, unit) {
  if (unit === "angstrom") return { size: size / 10, unit: "nm" };
  // Own properties only: "constructor" or "toString" are no units.
  if (Object.hasOwn(IN_METRES, unit)) return { size: size * IN_METRES[unit], unit: "m" };
  const m = /^([a-z]*)meter$/.exec(typeof unit === "string" ? unit : "");
  return m && Object.hasOwn(SI_PREFIX, m[1]) ? { size, unit: `${SI_PREFIX[m[1]]}m` } : null;
}

/** Physical pixel sizes of one level, by label, for the space axes (Viv reads x, y and z). */
function levelMeta(image, level, labels) {
  const physicalSizes = {};
  image.axes.forEach((axis, i) => {
    // An axis without a unit Viv knows has no physical size (Viv would read "" as metres).
    const size = axis.type === "space" && physicalSize(level.scale[i], axis.unit);
    if (size) physicalSizes[labels[i]] = size;
  });
  return Object.keys(physicalSizes).length ? { physicalSizes } : {};
}

/** Levels Viv can draw together: the same axes, each level half the one above in y and x. */
function checkLevels(arrays, paths, where) {
  const [first] = arrays;
  const rank = first.shape.length;
  arrays.forEach((array, k) => {
    const at = `${where}: level ${k} ("${paths[k]}", shape ${JSON.stringify(array.shape)})`;
    if (array.shape.length !== rank)
      throw new UnsupportedError(`${at} has ${array.shape.length} dimensions, level 0 has ${rank}`);
    if (array.dtype !== first.dtype)
      throw new UnsupportedError(`${at} is ${array.dtype}, level 0 is ${first.dtype}`);
    for (let i = 0; i < rank; i++) {
      const full = first.shape[i];
      const fits =
        i < rank - 2
          ? array.shape[i] === full
          : array.shape[i] >= Math.floor(full / 2 ** k) &&
            array.shape[i] <= Math.ceil(full / 2 ** k);
      if (!fits)
        throw new UnsupportedError(
          `${at} does not fit Viv's pyramids, where level k is level 0 (shape ${JSON.stringify(first.shape)}) with y and x divided by 2^k and the other axes whole; open its arrays one by one and give Viv the levels that fit`,
        );
    }
  });
}

/** Viv's layers take a level whose last axis has 3 or 4 pixels for interleaved RGB(A) samples. */
const looksInterleaved = (array) => [3, 4].includes(array.shape[array.shape.length - 1]);

/**
 * Viv's PixelSources for an OME-Zarr multiscale image (a group with `multiscales`), an array, or
 * a location `open` takes. See viv.d.ts.
 */
export async function openPixelSources(source, options = {}) {
  if (options !== undefined && options !== null && typeof options !== "object")
    throw new TypeError("openPixelSources options must be an object");
  const { labels, tileSize, ...openOptions } = options ?? {};
  const node =
    isArrayNode(source) || isGroupNode(source) ? source : await open(source, openOptions);
  if (isArrayNode(node))
    return { data: [new PixelSource(node, { labels, tileSize })], metadata: node.attrs };

  const where = `the group at ${nodeName(node)}`;
  const image = await openImage(node, { labels: false, signal: openOptions.signal });
  const opened = image.levels.map((level) => level.array);
  checkLevels(
    opened,
    image.levels.map((level) => level.path),
    where,
  );
  // Viv would draw a level 3 or 4 pixels wide as RGB(A): the pyramid stops above it (level 0 so
  // wide is refused by its PixelSource).
  const cut = opened.findIndex((array, k) => k > 0 && looksInterleaved(array));
  const nodes = cut < 0 ? opened : opened.slice(0, cut);
  const rank = nodes[0].shape.length;
  const resolved =
    labels === undefined || labels === null
      ? (labelsFrom(
          image.axes.map((a) => a.name),
          rank,
        ) ?? defaultLabels(rank))
      : labels;
  const data = nodes.map(
    (array, k) =>
      new PixelSource(array, {
        labels: resolved,
        // One tile size for every level: Viv's tiles of level k cover 2^k times as much of level 0.
        tileSize: tileSize ?? guessTileSize(nodes[0]),
        meta: levelMeta(image, image.levels[k], resolved),
      }),
  );
  return { data, metadata: image.metadata };
}
