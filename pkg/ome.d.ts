/**
 * OME-Zarr images as typed objects: `openImage` opens an image's group (OME-NGFF 0.1 to 0.5, on
 * Zarr v2 or v3) and gives its resolution levels as opened arrays, each with the scale and
 * translation that place it in the image's space, its axes, its `omero` channels and its label
 * images, opened the same way.
 *
 * ```ts
 * import { openImage } from "zarr-wasm/ome";
 * const image = await openImage("https://example.org/image.ome.zarr");
 * const coarsest = image.levels[image.levels.length - 1];
 * const plane = await coarsest.array.get([0, 0, null, null]);
 * for (const channel of image.channels) console.log(channel.label, channel.color, channel.window);
 * for (const label of image.labels) console.log(label.name, label.imageLabel?.colors);
 * ```
 * @module zarr-wasm/ome
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

/** The OME-NGFF versions `openImage` reads, oldest first. */
export declare const NGFF_VERSIONS: readonly ["0.1", "0.2", "0.3", "0.4", "0.5"];

/** An NGFF version `openImage` reads. */
export type NgffVersion = (typeof NGFF_VERSIONS)[number];

/** One of the image's dimensions. */
export interface Axis {
  /** The axis' name (`"c"`, `"z"`, `"y"`, `"x"`...), unique in the image. */
  name: string;
  /**
   * `"space"`, `"time"`, `"channel"`, or another type the metadata gives; `null` where it gives
   * none. For NGFF 0.3 and earlier, whose axes are names, the type the name implies (x, y, z
   * space; c channel; t time).
   */
  type: string | null;
  /** The unit of the axis' coordinates (`"micrometer"`, `"second"`...), or `null`. */
  unit: string | null;
}

/** One resolution level: an array, and where its pixels lie in the image's space. */
export interface Level {
  /** The array's path below the image's group, as the multiscale's dataset gives it. */
  path: string;
  /** The level's array, opened. */
  array: ZarrArray;
  /**
   * Per axis, the size of one of this level's pixels in the axis' unit: the dataset's scale
   * times the multiscale's own, where it has one. For a dataset without transformations
   * (NGFF 0.3 and earlier), how many times smaller the level is than level 0.
   */
  scale: number[];
  /**
   * Per axis, where the level's first pixel lies: its translations, scaled by what follows them,
   * as `point = index * scale + translation`.
   */
  translation: number[];
}

/** The display range of a channel (`omero` metadata's window). */
export interface ChannelWindow {
  /** The value drawn darkest, or `null` where the metadata has none. */
  start: number | null;
  /** The value drawn brightest, or `null`. */
  end: number | null;
  /** The smallest value the channel holds, or `null`. */
  min: number | null;
  /** The largest value the channel holds, or `null`. */
  max: number | null;
}

/** A channel as the image's `omero` metadata describes it. */
export interface Channel {
  /** Its name; `channel_<k>` where the metadata gives none, as ome-zarr-py names it. */
  label: string;
  /** Its colour as six uppercase hexadecimal digits (`"00FFFF"`), or `null`. */
  color: string | null;
  /** Its display range, or `null` where the metadata has none. */
  window: ChannelWindow | null;
  /** Whether it is shown (default `true`). */
  active: boolean;
  /** Whether its colours are drawn inverted (default `false`). */
  inverted: boolean;
  /** Its intensity mapping (`"linear"`...), or `null`. */
  family: string | null;
  /** Its coefficient, or `null`. */
  coefficient: number | null;
}

/** A label value's colour, from a label image's `image-label` metadata. */
export interface LabelColor {
  /** The pixel value it colours. */
  labelValue: number | boolean;
  /** Red, green, blue and alpha, each 0 to 255. */
  rgba: [number, number, number, number];
}

/** What the metadata says of one label value: `labelValue`, and the rest as written. */
export interface LabelProperties {
  /** The pixel value these properties belong to. */
  labelValue: number | boolean;
  /** The other properties, as the metadata gives them. */
  [property: string]: unknown;
}

/** A label image's `image-label` metadata. */
export interface ImageLabel {
  /** The version it gives, or `null`. */
  version: string | null;
  /** Colours by label value. */
  colors: LabelColor[];
  /** Properties by label value. */
  properties: LabelProperties[];
  /** The path from the label image to the image it labels (`"../../"`), or `null`. */
  source: string | null;
}

/** An OME-Zarr image (see `openImage`). */
export interface OmeImage {
  /** The image's group. */
  group: Group;
  /**
   * The NGFF version the metadata gives (`"0.4-dev"` read as `"0.4"`); `null` for a multiscale
   * that gives none (before 0.2), read as 0.1 to 0.3 lay images out.
   */
  version: NgffVersion | null;
  /** The multiscale's name, or `null`. */
  name: string | null;
  /** The image's axes, one per dimension of every level. */
  axes: Axis[];
  /** The levels, in the order of the multiscale's datasets (finest first, as NGFF asks). */
  levels: Level[];
  /** The `omero` channels; none where the image has no `omero` metadata. */
  channels: Channel[];
  /**
   * The label images of the image's `labels` group, in the order its `labels` attribute names
   * them, each opened as an image (`openImage`'s `labels: false` leaves them out). None where the
   * image has no labels group.
   */
  labels: LabelImage[];
  /** The `image-label` metadata of a label image; `null` for other images. */
  imageLabel: ImageLabel | null;
  /** The multiscale read, as written. */
  multiscale: Attributes;
  /** The image's OME attributes as written: NGFF 0.5's `ome` object, else the group's attributes. */
  metadata: Attributes;
}

/** A label image: an image of label values, named in its image's labels group. */
export interface LabelImage extends OmeImage {
  /** Its name in the labels group. */
  name: string;
}

/** Options of `openImage`: `open`'s options (its `kind` can only be `"group"`), and these. */
export interface OpenImageOptions extends Omit<OpenOptions, "kind"> {
  /** `"group"`, the only kind an image is. */
  kind?: "group";
  /** Whether to open the image's label images too (default `true`). */
  labels?: boolean;
  /** Which of the group's multiscales to read, for groups with several (default 0). */
  multiscale?: number;
}

/**
 * Opens the OME-Zarr image at `location`: a URL, a store, or an opened `Group` (an image's
 * group; opened with `options` where it is not one yet). NGFF 0.5 keeps the image's metadata
 * under `ome` in a Zarr v3 group's attributes; 0.4 and earlier in the attributes themselves.
 *
 * Rejects with a `MetadataError` for a group that is no image, saying what it lacks (and what
 * it is instead: a plate, a well, a bioformats2raw layout or a labels group, and where their
 * images are), for an array, and for metadata that contradicts itself or its arrays (a dataset
 * without a path, axes that do not match the arrays' dimensions, transformations of the wrong
 * length); with an `UnsupportedError` naming the version for an NGFF version it does not read
 * (0.6 and later: see `NGFF_VERSIONS`); and with `open`'s errors for the arrays.
 */
export declare function openImage(
  location: Group | string | URL | FetchStore | ZipStore | Store,
  options?: OpenImageOptions,
): Promise<OmeImage>;
