// zarr-wasm/convert: copies a Zarr hierarchy into a store that writes, every array re-encoded:
// another format, chunk shape, shard shape or codec, and OME-Zarr 0.4 metadata as 0.5. The
// command line (`npx zarr-wasm convert`, cli.js) and the viewer's "Save as OME-Zarr" are built on
// it. See convert.d.ts.
//
//   import { convert } from "zarr-wasm/convert";
//   await convert("https://example.org/image.ome.zarr", store, { shards: [4096, 4096], ome: true });
import {
  AbortError,
  MetadataError,
  NotFoundError,
  UnsupportedError,
  WorkerPool,
  ZarrError,
  __writer,
  consolidate,
  create,
  createGroup,
  erase,
  MemoryStore,
  open,
  preload,
  slice,
} from "./index.js";
import { openImage } from "./ome.js";

/** The codecs `codec` names, as the command line and `convert`'s `codec` option spell them. */
export const CODECS = Object.freeze(["zstd", "gzip", "blosc", "none"]);

/** Blosc's compressors, as `blosc:<cname>` names them. */
const BLOSC_CNAMES = ["blosclz", "lz4", "lz4hc", "zlib", "zstd"];

/** The values read or written at once, per array: a region of whole shards (or chunks) this large. */
const REGION_BYTES = 32 << 20;

/** Regions read, written or compared at once. */
const REGIONS_IN_FLIGHT = 2;

const quote = (value) => JSON.stringify(value);
const count = (shape) => shape.reduce((a, b) => a * b, 1);
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const nodeName = (path) => (path === "" ? "the root" : quote(path));
const arrayName = (path) => (path === "" ? "the root array" : `the array ${quote(path)}`);

/**
 * Parses a codec as the command line gives it: `zstd[:level]`, `gzip[:level]`,
 * `blosc:<cname>[:level]` or `none`. Returns `{ name, level, cname }`; a RangeError otherwise.
 */
export function parseCodec(text) {
  if (typeof text !== "string")
    throw new TypeError(`a codec is a string such as "zstd:5", not ${quote(text)}`);
  const [name, ...rest] = text.split(":");
  const level = (value, min, max) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!/^-?\d+$/.test(value) || n < min || n > max)
      throw new RangeError(
        `the codec ${quote(text)}: its level must be an integer from ${min} to ${max}`,
      );
    return n;
  };
  switch (name) {
    case "zstd":
      if (rest.length > 1) break;
      return { name, level: level(rest[0], -131072, 22) ?? 3 };
    case "gzip":
      if (rest.length > 1) break;
      return { name, level: level(rest[0], 0, 9) ?? 5 };
    case "blosc": {
      if (rest.length < 1 || rest.length > 2) break;
      if (!BLOSC_CNAMES.includes(rest[0]))
        throw new RangeError(
          `the codec ${quote(text)}: Blosc's compressor is one of ${BLOSC_CNAMES.join(", ")}`,
        );
      return { name, cname: rest[0], level: level(rest[1], 0, 9) ?? 5 };
    }
    case "none":
      if (rest.length > 0) break;
      return { name };
  }
  throw new RangeError(
    `unknown codec ${quote(text)}: give zstd[:level], gzip[:level], blosc:<cname>[:level] or none`,
  );
}

/** The data types written as themselves in both formats (others are refused, naming the array). */
const WRITABLE_TYPES =
  /^(bool|u?int(8|16|32|64)|float(32|64)|complex(64|128)|string|variable_length_bytes|[SU]\d+)$/;

/** The bytes an element takes in a region's values (strings count as 16: a guess, for progress). */
function elementBytes(dtype) {
  const bits = /(\d+)$/.exec(dtype);
  if (/^(string|variable_length_bytes|[SU]\d+)$/.test(dtype)) return 16;
  if (dtype === "bool") return 1;
  return bits ? Number(bits[1]) / 8 : 8;
}

/**
 * A shape option (`chunks` or `shards`) for an array of `ndim` dimensions: with fewer numbers,
 * they apply to the last dimensions and the others take `rest(d)`.
 */
function spread(given, ndim, rest, what, path) {
  if (given.length > ndim)
    throw new RangeError(
      `${what} has ${given.length} numbers; ${arrayName(path)} has ${ndim} dimensions`,
    );
  const lead = ndim - given.length;
  return Array.from({ length: ndim }, (_, d) => (d < lead ? rest(d) : given[d - lead]));
}

/** The destination's codecs (v3) or compressor (v2) for `codec` (parsed) and the data type. */
function codecsFor(codec, dtype, zarrFormat) {
  const typesize = /^(string|variable_length_bytes|[SU]\d+)$/.test(dtype) ? 1 : elementBytes(dtype);
  if (zarrFormat === 2) {
    switch (codec.name) {
      case "zstd":
        return { compressor: { id: "zstd", level: codec.level, checksum: false } };
      case "gzip":
        return { compressor: { id: "gzip", level: codec.level } };
      case "blosc":
        return {
          compressor: {
            id: "blosc",
            cname: codec.cname,
            clevel: codec.level,
            shuffle: typesize > 1 ? 1 : 0,
            blocksize: 0,
          },
        };
      default:
        return { compressor: null };
    }
  }
  const first =
    dtype === "string"
      ? { name: "vlen-utf8" }
      : dtype === "variable_length_bytes"
        ? { name: "vlen-bytes" }
        : { name: "bytes", configuration: { endian: "little" } };
  switch (codec.name) {
    case "zstd":
      return {
        codecs: [first, { name: "zstd", configuration: { level: codec.level, checksum: false } }],
      };
    case "gzip":
      return { codecs: [first, { name: "gzip", configuration: { level: codec.level } }] };
    case "blosc":
      return {
        codecs: [
          first,
          {
            name: "blosc",
            configuration: {
              cname: codec.cname,
              clevel: codec.level,
              shuffle: typesize > 1 ? "shuffle" : "noshuffle",
              typesize,
              blocksize: 0,
            },
          },
        ],
      };
    default:
      return { codecs: [first] };
  }
}

/** The fill value for the destination: the source's, or what reads of a v2 `null` give. */
function fillValueFor(arr) {
  if (arr.fillValue !== null) return arr.fillValue;
  if (/^(string|[SU]\d+)$/.test(arr.dtype)) return "";
  if (arr.dtype === "bool") return false;
  if (/int64$/.test(arr.dtype)) return 0n;
  return 0;
}

/** `create`'s options for the copy of `arr` at `path`, as `options` (checked) ask. */
function arraySpec(arr, path, options, attributes, dimensionNames) {
  if (!WRITABLE_TYPES.test(arr.dtype))
    throw new UnsupportedError(
      `cannot convert ${arrayName(path)}: writing its data type ${arr.dtype} is not supported`,
    );
  const ndim = arr.shape.length;
  const sourceChunks = arr.innerChunks ?? arr.chunks;
  if (sourceChunks === null && options.chunks === undefined)
    throw new UnsupportedError(
      `cannot convert ${arrayName(path)}: its chunk grid is rectilinear; give the chunk shape (--chunks)`,
    );
  const chunks = options.chunks
    ? spread(options.chunks, ndim, (d) => sourceChunks?.[d] ?? 1, "--chunks", path)
    : sourceChunks.slice();
  // A chunk never reaches further past the array than the array is long (at least 1).
  for (let d = 0; d < ndim; d++) chunks[d] = Math.max(1, Math.min(chunks[d], arr.shape[d] || 1));
  let shards = null;
  if (options.zarrFormat === 3) {
    const wanted =
      options.shards ??
      (arr.innerChunks && arr.zarrFormat === 3 && options.chunks === undefined ? arr.chunks : null);
    if (wanted) {
      shards = spread(wanted, ndim, (d) => chunks[d], "--shards", path).map((s, d) => {
        // Rounded up to whole inner chunks, and no larger than the array needs.
        const within = Math.max(1, Math.ceil((arr.shape[d] || 1) / chunks[d])) * chunks[d];
        return Math.min(Math.ceil(s / chunks[d]) * chunks[d], within);
      });
    }
  }
  const spec = {
    path,
    shape: arr.shape.slice(),
    dtype: options.zarrFormat === 2 && arr.dtype === "string" ? "|O" : arr.dtype,
    chunks,
    fillValue: fillValueFor(arr),
    attributes,
    zarrFormat: options.zarrFormat,
    ...codecsFor(options.codec, arr.dtype, options.zarrFormat),
  };
  if (options.codec.name === "default") {
    delete spec.codecs;
    delete spec.compressor;
  }
  if (shards) spec.shards = shards;
  if (options.zarrFormat === 3 && dimensionNames) spec.dimensionNames = dimensionNames;
  if (options.zarrFormat === 2 && dimensionNames?.every((n) => typeof n === "string"))
    spec.attributes = { ...attributes, _ARRAY_DIMENSIONS: dimensionNames };
  return spec;
}

// ---------------------------------------------------------------------------------------------
// OME-Zarr 0.4 (and earlier) as 0.5: the attributes move under "ome", with the version there.

/** The OME-NGFF keys of a group's attributes, which 0.5 keeps under `ome`. */
const OME_KEYS = [
  "multiscales",
  "omero",
  "labels",
  "image-label",
  "plate",
  "well",
  "bioformats2raw.layout",
];

/** Whether `attrs` hold OME-NGFF metadata of a version before 0.5. */
const hasOldOme = (attrs) => !isObject(attrs.ome) && OME_KEYS.some((k) => k in attrs);

/**
 * The attributes of a group as OME-Zarr 0.5 writes them. An image's multiscales are rebuilt
 * from what `openImage` read (axes with types and units, each level's scale and translation),
 * so that 0.1-0.3 images, which have no axes or transformations, become valid 0.5 ones.
 */
function ome05(attrs, image) {
  const out = {};
  for (const [k, v] of Object.entries(attrs)) if (!OME_KEYS.includes(k)) out[k] = v;
  const ome = { version: "0.5" };
  for (const key of OME_KEYS) {
    if (!(key in attrs)) continue;
    let value = structuredClone(attrs[key]);
    if (isObject(value)) delete value.version;
    if (key === "multiscales" && image) value = multiscales05(attrs.multiscales, image);
    ome[key] = value;
  }
  out.ome = ome;
  return out;
}

/** NGFF 0.5's `multiscales` for an image `openImage` read; the first multiscale is the image's. */
function multiscales05(original, image) {
  const first = isObject(original?.[0]) ? original[0] : {};
  const axes = image.axes.map(({ name, type, unit }) => {
    const axis = { name };
    if (type) axis.type = type;
    if (unit) axis.unit = unit;
    return axis;
  });
  const datasets = image.levels.map((level) => {
    const transforms = [{ type: "scale", scale: level.scale }];
    if (level.translation.some((t) => t !== 0))
      transforms.push({ type: "translation", translation: level.translation });
    return { path: level.path, coordinateTransformations: transforms };
  });
  const multiscale = { axes, datasets };
  for (const key of ["name", "type", "metadata"]) if (key in first) multiscale[key] = first[key];
  return [
    multiscale,
    ...original.slice(1).map((m) => (isObject(m) ? { ...m, version: undefined } : m)),
  ];
}

// ---------------------------------------------------------------------------------------------
// The source's hierarchy.

/**
 * The nodes below the group `root` of `source`: from consolidated metadata where it has it, else
 * by listing the store, else (a store that cannot list, as plain HTTP) from OME-Zarr metadata,
 * which names an image's levels and its labels. `[{ path, kind }]`, parents before children.
 */
async function nodesBelow(source, root, signal) {
  if (root.children) {
    const found = [];
    const walk = async (group, prefix) => {
      for (const child of group.children ?? []) {
        const path = prefix ? `${prefix}/${child.name}` : child.name;
        found.push({ path, kind: child.kind });
        if (child.kind === "group")
          await walk(await root.open(path, { kind: "group", signal }), path);
      }
    };
    await walk(root, "");
    return found;
  }
  try {
    return await (await __writer()).nodesBelow(source, root.path);
  } catch (err) {
    if (!(err instanceof UnsupportedError)) throw err;
    const found = await omeNodes(root, "", signal);
    if (found === null)
      throw new UnsupportedError(
        `cannot find the nodes below ${nodeName(root.path)}: the store cannot list and the group has no consolidated metadata or OME-Zarr metadata naming them`,
      );
    return found;
  }
}

/** The nodes an OME-Zarr group names (its levels, its labels), recursively; `null` if none. */
async function omeNodes(root, prefix, signal) {
  const group = prefix ? await root.open(prefix, { kind: "group", signal }) : root;
  const ome = isObject(group.attrs.ome) ? group.attrs.ome : group.attrs;
  const join = (p) => (prefix ? `${prefix}/${p}` : p);
  const found = [];
  const paths = (ome.multiscales ?? []).flatMap((m) => (m?.datasets ?? []).map((d) => d?.path));
  for (const path of paths)
    if (typeof path === "string") found.push({ path: join(path), kind: "array" });
  if (paths.length > 0) {
    try {
      const labels = await root.open(join("labels"), { kind: "group", signal });
      found.push({ path: join("labels"), kind: "group" });
      const names = (isObject(labels.attrs.ome) ? labels.attrs.ome : labels.attrs).labels ?? [];
      for (const name of names) {
        if (typeof name !== "string") continue;
        found.push({ path: join(`labels/${name}`), kind: "group" });
        found.push(...((await omeNodes(root, join(`labels/${name}`), signal)) ?? []));
      }
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return found.length > 0 || paths.length > 0 ? found : null;
}

// ---------------------------------------------------------------------------------------------
// Copying an array region by region.

/**
 * The regions an array of `shape` is copied in: boxes of whole write units (its shards, or its
 * chunks), as many along the last dimensions, then the ones before, as fit in REGION_BYTES.
 */
function* regions(shape, unit, itemBytes) {
  const ndim = shape.length;
  const units = shape.map((s, d) => Math.max(1, Math.ceil(s / unit[d])));
  const box = unit.slice();
  let bytes = count(unit) * itemBytes;
  for (let d = ndim - 1; d >= 0; d--) {
    const times = Math.max(1, Math.min(units[d], Math.floor(REGION_BYTES / bytes)));
    box[d] = unit[d] * times;
    bytes *= times;
    if (times < units[d]) break;
  }
  const grid = shape.map((s, d) => Math.max(1, Math.ceil(s / box[d])));
  if (shape.some((s) => s === 0)) return;
  const at = new Array(ndim).fill(0);
  for (let n = count(grid); n > 0; n--) {
    const start = at.map((a, d) => a * box[d]);
    const stop = start.map((s, d) => Math.min(s + box[d], shape[d]));
    yield { start, stop };
    for (let d = ndim - 1; d >= 0; d--) {
      if (++at[d] < grid[d]) break;
      at[d] = 0;
    }
  }
}

const selectionOf = ({ start, stop }) => start.map((s, d) => slice(s, stop[d]));
const describe = ({ start, stop }) => `[${start.map((s, d) => `${s}:${stop[d]}`).join(", ")}]`;

/** An AbortError where `signal` has aborted: a conversion stops between values. */
function throwIfAborted(signal) {
  if (signal?.aborted) throw new AbortError("the conversion was cancelled");
}

/** Runs `work(item)` for each item, `limit` at a time; the first failure stops the others. */
async function pooled(items, limit, work, signal) {
  const iterator = items[Symbol.iterator]();
  let failed = null;
  const lane = async () => {
    for (let next = iterator.next(); !next.done && !failed; next = iterator.next()) {
      throwIfAborted(signal);
      try {
        await work(next.value);
      } catch (err) {
        failed ??= err;
        throw err;
      }
    }
  };
  const lanes = Array.from({ length: limit }, lane);
  const settled = await Promise.allSettled(lanes);
  if (failed) throw failed;
  for (const s of settled) if (s.status === "rejected") throw s.reason;
}

/** Whether two values read from arrays are the same, element for element (bytes for numbers). */
function sameValues(a, b) {
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    if (a.byteLength !== b.byteLength) return -1;
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    const step = a.BYTES_PER_ELEMENT ?? 1;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return Math.floor(i / step);
    return null;
  }
  if (a.length !== b.length) return -1;
  for (let i = 0; i < a.length; i++) {
    const [p, q] = [a[i], b[i]];
    if (p instanceof Uint8Array && q instanceof Uint8Array) {
      if (p.length !== q.length || p.some((v, j) => v !== q[j])) return i;
    } else if (p !== q) return i;
  }
  return null;
}

/** The index of flat element `i` of a region, as coordinates in the array. */
function coordsOf(i, region) {
  const shape = region.stop.map((s, d) => s - region.start[d]);
  const coords = new Array(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    coords[d] = region.start[d] + (i % shape[d]);
    i = Math.floor(i / shape[d]);
  }
  return coords;
}

// ---------------------------------------------------------------------------------------------
// The conversion.

/** `convert`'s options, checked and with their defaults. */
function checkOptions(options) {
  if (!isObject(options)) throw new TypeError("convert's options must be an object");
  const known = [
    "zarrFormat",
    "chunks",
    "shards",
    "codec",
    "ome",
    "workers",
    "verify",
    "overwrite",
    "signal",
    "onProgress",
    "consolidated",
    // The command line's worker threads (pkg/cli-workers.js), which copy and compare regions in
    // modules of their own: an internal hook, not in convert.d.ts.
    "__regionWorkers",
  ];
  for (const key of Object.keys(options))
    if (!known.includes(key)) throw new TypeError(`convert has no option ${quote(key)}`);
  const zarrFormat = options.zarrFormat ?? 3;
  if (zarrFormat !== 2 && zarrFormat !== 3)
    throw new RangeError(`zarrFormat must be 2 or 3, not ${quote(zarrFormat)}`);
  const shape = (value, what) => {
    if (value === undefined) return undefined;
    if (
      !Array.isArray(value) ||
      value.length === 0 ||
      !value.every((n) => Number.isInteger(n) && n > 0)
    )
      throw new RangeError(`${what} must be positive integers, not ${quote(value)}`);
    return value;
  };
  const chunks = shape(options.chunks, "chunks");
  const shards = shape(options.shards, "shards");
  if (shards && zarrFormat === 2)
    throw new RangeError("shards are Zarr v3's: they cannot be written with zarrFormat 2");
  const ome = options.ome ?? false;
  if (ome && zarrFormat === 2)
    throw new RangeError(
      "OME-Zarr 0.5 (ome: true, --ome) is Zarr v3: it cannot be written with zarrFormat 2",
    );
  const codec =
    options.codec === undefined
      ? { name: "default" }
      : typeof options.codec === "string"
        ? parseCodec(options.codec)
        : options.codec;
  const workers = options.workers ?? 0;
  if (!Number.isInteger(workers) || workers < 0 || workers > 64)
    throw new RangeError(`workers must be an integer from 0 to 64, not ${quote(workers)}`);
  if (options.onProgress !== undefined && typeof options.onProgress !== "function")
    throw new TypeError("onProgress must be a function");
  return {
    zarrFormat,
    chunks,
    shards,
    codec,
    ome,
    workers,
    verify: options.verify ?? true,
    overwrite: options.overwrite ?? false,
    signal: options.signal,
    onProgress: options.onProgress ?? (() => {}),
    regionWorkers: options.__regionWorkers ?? null,
    consolidated: options.consolidated,
  };
}

/** Whether a Zarr node is at the root of `destination`. */
async function holdsNode(destination, signal) {
  try {
    const node = await open(destination, { signal });
    node.free();
    return true;
  } catch (err) {
    if (err instanceof NotFoundError) return false;
    throw err;
  }
}

/**
 * Copies the hierarchy at `source` (a URL or a store, as open() takes it) into `destination` (a
 * store that writes), every array re-encoded as `options` say (see convert.d.ts). Resolves to
 * what was written: `{ arrays, groups, bytes, regions }`.
 */
export async function convert(source, destination, options = {}) {
  const o = checkOptions(options);
  const { signal } = o;
  // The write build at once: nodes opened before it loads would be opened again in it.
  await preload({ write: true });
  // Planned whole before anything is written: every node's destination, checked.
  const root = await open(source, { signal });
  const nodes = [{ path: "", kind: root.kind }];
  if (root.kind === "group") nodes.push(...(await nodesBelow(source, root, signal)));
  const plan = [];
  for (const { path, kind } of nodes) {
    throwIfAborted(signal);
    const node = path === "" ? root : await root.open(path, { kind, signal });
    if (kind === "group") {
      let attributes = structuredClone(node.attrs);
      if (o.ome && hasOldOme(attributes)) {
        const image = Array.isArray(attributes.multiscales)
          ? await openImage(node, { labels: false })
          : null;
        attributes = ome05(attributes, image);
      }
      plan.push({ kind, path, attributes, source: node });
      continue;
    }
    plan.push({ kind, path, source: node });
  }
  // Dimension names: the array's own, else (with `ome`) its image's axes.
  const axesOf = new Map();
  for (const step of plan)
    if (step.kind === "group" && step.attributes.ome?.multiscales) {
      const [multiscale] = step.attributes.ome.multiscales;
      for (const dataset of multiscale?.datasets ?? [])
        axesOf.set(
          step.path ? `${step.path}/${dataset.path}` : dataset.path,
          multiscale.axes.map((a) => a.name),
        );
    }
  for (const step of plan) {
    if (step.kind !== "array") continue;
    const arr = step.source;
    const attributes = structuredClone(arr.attrs);
    delete attributes._ARRAY_DIMENSIONS;
    const names = arr.dimensionNames ?? axesOf.get(step.path) ?? null;
    step.spec = arraySpec(arr, step.path, o, attributes, names);
    // The module's own checks, on a store of no consequence: an option it refuses is that error
    // now, before the destination is touched.
    const trial = await create(new MemoryStore(), { ...step.spec, path: "" });
    trial.free();
    step.bytes = count(arr.shape) * elementBytes(arr.dtype);
  }
  throwIfAborted(signal);
  if (await holdsNode(destination, signal)) {
    if (!o.overwrite)
      throw new ZarrError(
        `the destination ${label(destination)} already holds a Zarr node: pass overwrite: true (--overwrite) to replace it`,
      );
    await erase(destination, "");
  }
  o.pool = o.workers > 0 ? new WorkerPool(o.workers) : null;
  try {
    return await write(source, destination, root, plan, o);
  } finally {
    o.pool?.terminate();
    for (const step of plan) step.source.free?.();
  }
}

/** Writes what `convert` planned, then reads it back where asked. */
async function write(source, destination, root, plan, o) {
  const total = plan.reduce((sum, s) => sum + (s.bytes ?? 0), 0);
  const progress = {
    phase: "copy",
    bytesDone: 0,
    bytesTotal: total,
    path: "",
    arraysDone: 0,
    arraysTotal: plan.filter((s) => s.kind === "array").length,
  };
  const report = (change) => {
    Object.assign(progress, change);
    o.onProgress({ ...progress });
  };
  report({});
  let regionsWritten = 0;
  for (const step of plan) {
    throwIfAborted(o.signal);
    if (step.kind === "group") {
      const group = await createGroup(destination, {
        path: step.path,
        attributes: step.attributes,
        zarrFormat: o.zarrFormat,
      });
      group.free();
      continue;
    }
    report({ path: step.path });
    regionsWritten += await copyArray(source, destination, step, o, (bytes) =>
      report({ bytesDone: progress.bytesDone + bytes }),
    );
    report({ arraysDone: progress.arraysDone + 1 });
  }
  if (root.kind === "group" && (o.consolidated ?? root.children !== null))
    await consolidate(destination, "");
  if (o.verify) {
    report({ phase: "verify", bytesDone: 0, arraysDone: 0 });
    for (const step of plan) {
      if (step.kind !== "array") continue;
      report({ path: step.path });
      await verifyArray(source, destination, step, o, (bytes) =>
        report({ bytesDone: progress.bytesDone + bytes }),
      );
      report({ arraysDone: progress.arraysDone + 1 });
    }
  }
  return {
    arrays: plan.filter((s) => s.kind === "array").length,
    groups: plan.filter((s) => s.kind === "group").length,
    bytes: total,
    regions: regionsWritten,
  };
}

/** A store's name in messages. */
function label(store) {
  if (typeof store === "string") return store;
  return store?.url ?? store?.constructor?.name ?? "store";
}

/** The array at `path` of `location`, opened (through the conversion's workers where it has them). */
function openArray(location, path, o) {
  return open(location, {
    path,
    kind: "array",
    signal: o.signal,
    ...(o.pool ? { workers: o.pool } : {}),
  });
}

/**
 * Copies (`phase` "copy") or compares ("verify") `regions` of the array at `path` of `source` and
 * `destination`, two at a time, calling `onRegion(bytes)` after each: the work of one thread,
 * `convert`'s own or a worker's of the command line (an internal hook: pkg/convert-worker.js).
 * `pool`: a WorkerPool the arrays are opened with, or null.
 */
export async function __runRegions(source, destination, job, onRegion, signal) {
  const { phase, path, regions: boxes, pool = null } = job;
  const o = { signal, pool };
  let from, to;
  try {
    [from, to] = await Promise.all([openArray(source, path, o), openArray(destination, path, o)]);
    if (to.shape.join() !== from.shape.join())
      throw new MetadataError(
        `${phase === "copy" ? "converting" : "verifying"} ${arrayName(path)}: the copy is ${to.dtype} ${quote(to.shape)}, the source ${from.dtype} ${quote(from.shape)}`,
      );
    const itemBytes = elementBytes(from.dtype);
    await pooled(
      boxes,
      REGIONS_IN_FLIGHT,
      async (region) => {
        const selection = selectionOf(region);
        if (phase === "copy") {
          await (await __writer()).copyRegion(from, to, selection, { signal });
        } else {
          const [a, b] = await Promise.all([
            from.get(selection, { signal }),
            to.get(selection, { signal }),
          ]);
          const differs = sameValues(a.data, b.data);
          if (differs !== null)
            throw new ZarrError(
              `verifying ${arrayName(path)}: the copy differs from the source in ${describe(region)}${differs >= 0 ? `, first at [${coordsOf(differs, region).join(", ")}]` : " (another length)"}`,
            );
        }
        onRegion(count(region.stop.map((s, d) => s - region.start[d])) * itemBytes);
      },
      signal,
    );
  } finally {
    from?.free();
    to?.free();
  }
}

/**
 * Runs one phase over an array's regions: through `o.regionWorkers` (the command line's worker
 * threads, each with its own module and stores) where given, else on this thread.
 */
function runPhase(source, destination, job, o, onBytes) {
  if (o.regionWorkers) return o.regionWorkers.run(job, onBytes, o.signal);
  return __runRegions(source, destination, { ...job, pool: o.pool }, onBytes, o.signal);
}

/** The regions of one array as its writes go: boxes of whole shards (or chunks). */
const regionsOf = (step) => [
  ...regions(
    step.spec.shape,
    step.spec.shards ?? step.spec.chunks,
    elementBytes(step.source.dtype),
  ),
];

/** Copies one array region by region; resolves to the regions written. */
async function copyArray(source, destination, step, o, onBytes) {
  try {
    const made = await create(destination, step.spec);
    made.free();
    const boxes = regionsOf(step);
    await runPhase(
      source,
      destination,
      { phase: "copy", path: step.path, regions: boxes },
      o,
      onBytes,
    );
    return boxes.length;
  } catch (err) {
    if (
      err instanceof ZarrError &&
      !(err instanceof AbortError) &&
      !err.message.includes(step.path)
    )
      err.message = `converting ${arrayName(step.path)}: ${err.message}`;
    throw err;
  }
}

/** Reads the copy of one array back and compares it with the source, region by region. */
function verifyArray(source, destination, step, o, onBytes) {
  return runPhase(
    source,
    destination,
    { phase: "verify", path: step.path, regions: regionsOf(step) },
    o,
    onBytes,
  );
}
