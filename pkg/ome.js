// OME-Zarr images (OME-NGFF 0.1 to 0.5) as typed objects: the levels opened, with their scales and
// translations, the axes, the omero channels and the label images. See ome.d.ts.
//
//   import { openImage } from "zarr-wasm/ome";
//   const image = await openImage("https://example.org/image.ome.zarr");
//   const { array, scale } = image.levels.at(-1);
import { MetadataError, NotFoundError, UnsupportedError, open } from "./index.js";
import { isArrayNode, isGroupNode, nodeName } from "./nodes.js";

/** The NGFF versions read, newest last. */
export const NGFF_VERSIONS = Object.freeze(["0.1", "0.2", "0.3", "0.4", "0.5"]);

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const quote = (value) => JSON.stringify(value)?.slice(0, 80) ?? String(value);

// Axis types NGFF gives the names of versions 0.3 and earlier (which have no types).
const TYPE_OF_NAME = { x: "space", y: "space", z: "space", c: "channel", t: "time" };

/**
 * The OME-Zarr attributes of a group and their NGFF version: NGFF 0.5 keeps them under `ome`,
 * with the version there; earlier versions keep them in the attributes, the version in each
 * multiscale (absent before 0.2's writers added it).
 */
function omeOf(attrs, multiscaleIndex) {
  if (isObject(attrs.ome)) {
    // `ome` exists from 0.5 on; a writer that left its version out (ome-zarr-py does for
    // labels groups) wrote 0.5 or later, and 0.5 is what its layout is read as.
    const version = attrs.ome.version ?? attrs.ome.multiscales?.[multiscaleIndex]?.version;
    return { ome: attrs.ome, version: version ?? "0.5" };
  }
  const version = Array.isArray(attrs.multiscales)
    ? attrs.multiscales[multiscaleIndex]?.version
    : undefined;
  return { ome: attrs, version: version ?? null };
}

/** The version as NGFF_VERSIONS names it ("0.4-dev" is 0.4), or an UnsupportedError. */
function knownVersion(version, where) {
  if (version === null) return null;
  const m = typeof version === "string" ? /^(0\.[1-5])(?:-dev\d*)?$/.exec(version) : null;
  if (!m)
    throw new UnsupportedError(
      `${where} is OME-NGFF version ${quote(version)}, which zarr-wasm/ome does not read: it reads ${NGFF_VERSIONS.join(", ")}`,
    );
  return m[1];
}

/** What a group without multiscales is instead, for the error that says so. */
function whatInstead(ome, group) {
  if (isObject(ome.plate)) {
    const well = ome.plate.wells?.[0]?.path;
    return `it is a high-content screening plate; its images are in its wells' fields${typeof well === "string" ? ` (the first: "${well}/0")` : ""}`;
  }
  if (isObject(ome.well)) {
    const field = ome.well.images?.[0]?.path;
    return `it is a well of a plate; its images are its fields${typeof field === "string" ? ` (the first: "${field}")` : ""}`;
  }
  if (ome["bioformats2raw.layout"] !== undefined)
    return `it is a bioformats2raw layout; its images are the groups "0", "1"... below it (open ${group.path ? `"${group.path}/0"` : '"0"'})`;
  if (Array.isArray(ome.labels))
    return `it is a labels group; its label images are ${ome.labels
      .slice(0, 5)
      .map((n) => quote(n))
      .join(", ")}${ome.labels.length > 5 ? "..." : ""}`;
  return 'its attributes have no multiscales with datasets (NGFF 0.4 has them in the attributes, 0.5 under "ome")';
}

/** An axis as NGFF 0.4 writes it; names alone (0.3) get the type their name implies. */
function axisOf(axis, k, where) {
  if (typeof axis === "string" && axis !== "")
    return { name: axis, type: TYPE_OF_NAME[axis] ?? null, unit: null };
  if (!isObject(axis) || typeof axis.name !== "string" || axis.name === "")
    throw new MetadataError(`${where}: axis ${k} has no name (${quote(axis)})`);
  const type = typeof axis.type === "string" ? axis.type : null;
  const unit = typeof axis.unit === "string" ? axis.unit : null;
  return { name: axis.name, type, unit };
}

/**
 * The axes: the multiscale's, else (NGFF 0.2 and earlier, which have none) the level-0 array's
 * dimension names, else t, c, z, y, x from the end as those versions laid images out.
 */
function axesOf(multiscale, level0, where) {
  const rank = level0.shape.length;
  let axes;
  if (multiscale.axes !== undefined) {
    if (!Array.isArray(multiscale.axes))
      throw new MetadataError(`${where}: its axes are not a list (${quote(multiscale.axes)})`);
    axes = multiscale.axes.map((axis, k) => axisOf(axis, k, where));
  } else {
    const names = level0.dimensionNames;
    const named =
      Array.isArray(names) && names.length === rank && names.every((n) => typeof n === "string");
    const defaults = ["t", "c", "z", "y", "x"].slice(-rank);
    const all = named
      ? names
      : [...Array.from({ length: rank - defaults.length }, (_, i) => `dim_${i}`), ...defaults];
    axes = all.map((name) => ({ name, type: TYPE_OF_NAME[name] ?? null, unit: null }));
  }
  if (axes.length !== rank)
    throw new MetadataError(
      `${where} has ${axes.length} axes (${axes.map((a) => a.name).join(", ")}), but its level 0 array has ${rank} dimensions (shape ${quote(level0.shape)})`,
    );
  if (new Set(axes.map((a) => a.name)).size !== axes.length)
    throw new MetadataError(
      `${where}: its axes' names repeat (${axes.map((a) => a.name).join(", ")})`,
    );
  return axes;
}

/** A list of `rank` finite numbers, or a MetadataError naming where it was found. */
function numbers(values, rank, what) {
  if (!Array.isArray(values) || values.length !== rank || !values.every(Number.isFinite))
    throw new MetadataError(`${what} is not ${rank} finite numbers: ${quote(values)}`);
  return values;
}

/**
 * Applies NGFF coordinateTransformations (scales and translations, in order) to the transform
 * `{ scale, translation }` that maps an array index to a point; `path`-valued ones (binary
 * arrays of factors) are refused.
 */
function compose(transform, transforms, rank, what) {
  if (transforms === undefined || transforms === null) return transform;
  if (!Array.isArray(transforms))
    throw new MetadataError(`${what}: coordinateTransformations is not a list`);
  let { scale, translation } = transform;
  transforms.forEach((t, k) => {
    const at = `${what}: coordinateTransformations[${k}]`;
    if (!isObject(t)) throw new MetadataError(`${at} is not an object: ${quote(t)}`);
    if (t.type === "identity") return;
    if (
      (t.type === "scale" || t.type === "translation") &&
      t.path !== undefined &&
      t[t.type] === undefined
    )
      throw new UnsupportedError(
        `${at} gives its ${t.type} in a binary file ("${t.path}"), which zarr-wasm/ome does not read`,
      );
    if (t.type === "scale") {
      const s = numbers(t.scale, rank, `${at}'s scale`);
      scale = scale.map((v, i) => v * s[i]);
      translation = translation.map((v, i) => v * s[i]);
    } else if (t.type === "translation") {
      const d = numbers(t.translation, rank, `${at}'s translation`);
      translation = translation.map((v, i) => v + d[i]);
    } else {
      throw new UnsupportedError(
        `${at} is of type ${quote(t.type)}: OME-NGFF up to 0.5 has scale, translation and identity`,
      );
    }
  });
  return { scale, translation };
}

/**
 * Each level's scale and translation, from array index to the image's space: the dataset's own
 * transformations, then the multiscale's. A dataset without any (NGFF 0.3 and earlier) is
 * scaled by how much smaller it is than level 0, the first level's pixel being 1.
 */
function placeLevels(multiscale, arrays, where) {
  const rank = arrays[0].shape.length;
  const identity = { scale: Array(rank).fill(1), translation: Array(rank).fill(0) };
  return arrays.map((array, k) => {
    const dataset = multiscale.datasets[k];
    const what = `${where}: dataset ${k} ("${dataset.path}")`;
    const own = dataset.coordinateTransformations;
    let transform;
    if (Array.isArray(own) && own.length > 0) {
      transform = compose(identity, own, rank, what);
    } else {
      const scale = arrays[0].shape.map((n, i) => (array.shape[i] > 0 ? n / array.shape[i] : 1));
      transform = { scale, translation: Array(rank).fill(0) };
    }
    return compose(
      transform,
      multiscale.coordinateTransformations,
      rank,
      `${where}: the multiscale`,
    );
  });
}

/** A number, or null where the metadata has none. */
const numberOrNull = (value) => (Number.isFinite(value) ? value : null);

/** The omero channels, each with what a viewer draws it by. */
function channelsOf(omero, where) {
  if (omero === undefined || omero === null) return [];
  if (!isObject(omero) || (omero.channels !== undefined && !Array.isArray(omero.channels)))
    throw new MetadataError(
      `${where}: its omero metadata has no list of channels (${quote(omero)})`,
    );
  return (omero.channels ?? []).map((channel, k) => {
    if (!isObject(channel))
      throw new MetadataError(`${where}: omero channel ${k} is not an object (${quote(channel)})`);
    const color =
      typeof channel.color === "string" && /^[0-9a-fA-F]{6}$/.test(channel.color)
        ? channel.color.toUpperCase()
        : null;
    const w = isObject(channel.window) ? channel.window : null;
    return {
      label: typeof channel.label === "string" ? channel.label : `channel_${k}`,
      color,
      window: w && {
        start: numberOrNull(w.start),
        end: numberOrNull(w.end),
        min: numberOrNull(w.min),
        max: numberOrNull(w.max),
      },
      active: typeof channel.active === "boolean" ? channel.active : true,
      inverted: channel.inverted === true,
      family: typeof channel.family === "string" ? channel.family : null,
      coefficient: numberOrNull(channel.coefficient),
    };
  });
}

/** A label image's `image-label` metadata: colours and properties by label value. */
function imageLabelOf(ome, where) {
  const meta = ome["image-label"];
  if (meta === undefined) return null;
  if (!isObject(meta)) throw new MetadataError(`${where}: its image-label is not an object`);
  const byValue = (list, what) => {
    if (list === undefined) return [];
    if (!Array.isArray(list))
      throw new MetadataError(`${where}: image-label ${what} is not a list`);
    return list.map((entry, k) => {
      const value = entry?.["label-value"];
      if (!isObject(entry) || !(Number.isInteger(value) || typeof value === "boolean"))
        throw new MetadataError(
          `${where}: image-label ${what} entry ${k} has no integer label-value (${quote(entry)})`,
        );
      return entry;
    });
  };
  const colors = byValue(meta.colors, "colors").map((entry, k) => {
    const { rgba } = entry;
    if (
      !Array.isArray(rgba) ||
      rgba.length !== 4 ||
      !rgba.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)
    )
      throw new MetadataError(
        `${where}: image-label colors entry ${k} has no rgba of four integers 0 to 255 (${quote(entry)})`,
      );
    return { labelValue: entry["label-value"], rgba: [...rgba] };
  });
  const properties = byValue(meta.properties, "properties").map((entry) => {
    const { "label-value": labelValue, ...rest } = entry;
    return { labelValue, ...rest };
  });
  const image = meta.source?.image;
  return {
    version: typeof meta.version === "string" ? meta.version : null,
    colors,
    properties,
    source: typeof image === "string" ? image : null,
  };
}

/** The names in a labels group's `labels` attribute. */
function labelNames(labelsGroup, where) {
  const attrs = labelsGroup.attrs ?? {};
  const names = (isObject(attrs.ome) ? attrs.ome : attrs).labels;
  if (names === undefined) return [];
  if (!Array.isArray(names) || !names.every((n) => typeof n === "string" && n !== ""))
    throw new MetadataError(
      `${where}: its labels attribute is not a list of names (${quote(names)})`,
    );
  return names;
}

/** The image's labels group, or null where it has none. */
async function labelsGroupOf(group, signal) {
  // Consolidated metadata lists the children: no request for a group that is not there.
  if (Array.isArray(group.children) && !group.children.some((c) => c.name === "labels"))
    return null;
  try {
    return await group.open("labels", { kind: "group", signal });
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/** The image in `group`, its labels opened where `withLabels`. */
async function imageOf(group, { multiscale: index, withLabels, signal }) {
  const where = `the group at ${nodeName(group)}`;
  const { ome, version: given } = omeOf(group.attrs ?? {}, index);
  const multiscale = Array.isArray(ome.multiscales) ? ome.multiscales[index] : undefined;
  if (!Array.isArray(multiscale?.datasets) || multiscale.datasets.length === 0) {
    const which =
      Array.isArray(ome.multiscales) && ome.multiscales.length > 0 && index > 0
        ? `it has ${ome.multiscales.length} multiscales, none numbered ${index}`
        : whatInstead(ome, group);
    throw new MetadataError(`${where} is no OME-Zarr image: ${which}`);
  }
  const version = knownVersion(given, where);
  const paths = multiscale.datasets.map((d, k) => {
    if (typeof d?.path !== "string" || d.path === "")
      throw new MetadataError(`${where}: multiscales dataset ${k} has no path`);
    return d.path;
  });
  const labelsGroup = withLabels ? labelsGroupOf(group, signal) : Promise.resolve(null);
  labelsGroup.catch(() => {}); // awaited below, after the levels
  const arrays = await Promise.all(paths.map((path) => group.open(path, { signal })));
  arrays.forEach((node, k) => {
    if (!isArrayNode(node))
      throw new MetadataError(
        `${where}: multiscales dataset ${k} ("${paths[k]}") is a group, not an array`,
      );
  });
  const axes = axesOf(multiscale, arrays[0], where);
  arrays.forEach((array, k) => {
    if (array.shape.length !== axes.length)
      throw new MetadataError(
        `${where}: level ${k} ("${paths[k]}", shape ${quote(array.shape)}) has ${array.shape.length} dimensions, the image's axes ${axes.length}`,
      );
  });
  const places = placeLevels(multiscale, arrays, where);
  const levels = arrays.map((array, k) => ({ path: paths[k], array, ...places[k] }));
  const labels = [];
  const found = await labelsGroup;
  if (found) {
    const at = `the labels group of ${where.slice(4)}`;
    const names = labelNames(found, at);
    const opened = await Promise.all(
      names.map(async (name) => {
        const node = await found.open(name, { kind: "group", signal });
        const image = await imageOf(node, { multiscale: 0, withLabels: false, signal });
        return { ...image, name };
      }),
    );
    labels.push(...opened);
  }
  return {
    group,
    version,
    name: typeof multiscale.name === "string" ? multiscale.name : null,
    axes,
    levels,
    channels: channelsOf(ome.omero, where),
    labels,
    imageLabel: imageLabelOf(ome, where),
    multiscale,
    metadata: ome,
  };
}

/**
 * Opens the OME-Zarr image at `location` (a URL, a store, or an opened Group), NGFF 0.1 to 0.5:
 * its levels, axes, channels and label images. See ome.d.ts.
 */
export async function openImage(location, options = {}) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== "object") throw new TypeError("openImage options must be an object");
  const { labels = true, multiscale = 0, kind, ...openOptions } = options;
  if (kind !== undefined && kind !== "group")
    throw new TypeError(
      `openImage opens a group: its kind option can only be "group", not ${quote(kind)}`,
    );
  if (typeof labels !== "boolean")
    throw new TypeError(`openImage's labels option is true or false, not ${quote(labels)}`);
  if (!Number.isSafeInteger(multiscale) || multiscale < 0)
    throw new TypeError(
      `openImage's multiscale option is an index from 0, not ${quote(multiscale)}`,
    );
  if (isArrayNode(location))
    throw new MetadataError(
      `the array at ${nodeName(location)} is no OME-Zarr image: an image is the group that holds its levels' arrays`,
    );
  const group = isGroupNode(location)
    ? location
    : await open(location, { ...openOptions, kind: "group" });
  return imageOf(group, { multiscale, withLabels: labels, signal: openOptions.signal });
}
