// zarrita.js with zarr-wasm's decoders, and zarrita's stores read by zarr-wasm (see zarrita.d.ts).
//
//   import * as zarr from "zarrita";
//   import { registerCodecs } from "zarr-wasm/zarrita";
//   registerCodecs(zarr.registry);
//
// zarrita keeps its API, stores, selections and array codecs; each bytes-to-bytes codec zarr-wasm
// knows (compressors, checksums, byte shuffles) decodes in zarr-wasm's module instead. Encoding,
// which zarr-wasm does not do, stays with the codec zarrita had registered under that name.
import { bytesDecoder } from "./index.js";

// Its own file, which imports nothing: an app that merges its requests and decodes with zarrita's
// own codecs bundles none of zarr-wasm (and no page downloads its module for it).
export { mergeRanges } from "./merge.js";

/**
 * The bytes-to-bytes codecs of zarr-wasm's codec table, by their v3 names (zarrita names a v2
 * filter or compressor `numcodecs.<id>`). A native test checks this list against the table.
 */
export const codecNames = Object.freeze([
  "blosc",
  "crc32c",
  "conditional",
  "gzip",
  "zstd",
  "numcodecs.adler32",
  "numcodecs.base64",
  "numcodecs.blosc",
  "numcodecs.bz2",
  "numcodecs.crc32",
  "numcodecs.crc32c",
  "numcodecs.fletcher32",
  "numcodecs.gzip",
  "numcodecs.jenkins_lookup3",
  "numcodecs.lz4",
  "numcodecs.lzma",
  "numcodecs.shuffle",
  "numcodecs.zlib",
  "numcodecs.zstd",
]);

// Bytes of an element of the fixed-size types: zarr-wasm takes these as numcodecs' shuffle's
// default element size, and a chunk's size from them.
const ITEM_SIZE = {
  bool: 1,
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  float16: 2,
  int32: 4,
  uint32: 4,
  float32: 4,
  int64: 8,
  uint64: 8,
  float64: 8,
};
const isFixedSize = (dataType) => Object.hasOwn(ITEM_SIZE, dataType ?? "");

/**
 * Makes `registry` (zarrita's `zarr.registry`) decode `options.names` (default: all) with
 * zarr-wasm. Arrays zarrita has read before keep the codecs they loaded: register first.
 */
export function registerCodecs(registry, options = {}) {
  if (typeof registry?.get !== "function" || typeof registry?.set !== "function")
    throw new TypeError("registerCodecs needs zarrita's codec registry (zarr.registry), a Map");
  const names = options?.names ?? codecNames;
  if (!Array.isArray(names))
    throw new TypeError("registerCodecs option names must be an array of codec names");
  // Every name is checked before any is registered.
  const unknown = names.filter((name) => !codecNames.includes(name));
  if (unknown.length > 0)
    throw new TypeError(
      `zarr-wasm has no bytes-to-bytes codec named ${unknown.map((n) => JSON.stringify(n)).join(", ")}`,
    );
  const maxBytes = options?.maxBytes;
  if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes > 0))
    throw new TypeError("registerCodecs option maxBytes must be a positive integer");
  for (const name of names) {
    // Registered twice, the codec keeps the loader it replaced the first time.
    const previous = registry.get(name);
    const encoderLoader = previous?.[ENCODER_LOADER] ?? previous;
    const Codec = codecClass(name, encoderLoader, maxBytes);
    const load = () => Codec;
    load[ENCODER_LOADER] = encoderLoader;
    registry.set(name, load);
  }
  return registry;
}

// Where a loader registered by registerCodecs keeps the loader it replaced.
const ENCODER_LOADER = Symbol("zarr-wasm: the encoder's loader");

// What a fixed-size codec adds to a chunk: zarrita asks a shard index's codecs synchronously
// (`computeEncodedSize`), before any of zarr-wasm's decoders needs to be ready. A test checks
// these against zarr-wasm's codecs; a codec without the method makes zarrita refuse it in an
// index pipeline, as its own do.
const ADDED_BYTES = new Map([
  ["crc32c", 4],
  ["numcodecs.adler32", 4],
  ["numcodecs.crc32", 4],
  ["numcodecs.crc32c", 4],
  ["numcodecs.fletcher32", 4],
  ["numcodecs.jenkins_lookup3", 4],
  ["numcodecs.shuffle", 0],
]);

/** The most bytes a chunk of `meta` may decode to: zarr-wasm's default, or more for larger chunks. */
function decodedCap(meta, maxBytes) {
  if (maxBytes !== undefined) return maxBytes;
  if (!isFixedSize(meta?.dataType) || !Array.isArray(meta?.shape)) return undefined;
  const size = ITEM_SIZE[meta.dataType];
  // A chunk's bytes, and room for what compressors add to incompressible data.
  const bytes = meta.shape.reduce((a, b) => a * b, size);
  return bytes > DEFAULT_CAP ? bytes + Math.ceil(bytes / 64) + 65536 : undefined;
}
const DEFAULT_CAP = 256 * 2 ** 20; // limits.maxDecodedChunkBytes's default

/** zarrita's codec class for `name`: decoding by zarr-wasm, encoding by `encoderLoader`'s. */
function codecClass(name, encoderLoader, maxBytes) {
  return class ZarrWasmCodec {
    kind = "bytes_to_bytes";
    #decoder = null;
    #configuration;
    #meta;
    #encoder = null;

    static fromConfig(configuration, meta) {
      return new ZarrWasmCodec(configuration, meta);
    }

    constructor(configuration, meta) {
      this.#configuration = configuration ?? {};
      this.#meta = meta;
      if (ADDED_BYTES.has(name)) this.computeEncodedSize = (size) => size + ADDED_BYTES.get(name);
    }

    async decode(bytes) {
      this.#decoder ??= this.#build();
      return (await this.#decoder).decode(bytes);
    }

    /** The decoder, built at the first decode; a failed build is tried again by the next. */
    #build() {
      const meta = this.#meta;
      const dataType = isFixedSize(meta?.dataType) ? meta.dataType : undefined;
      const decoder = bytesDecoder(
        { name, configuration: this.#configuration },
        { dataType, maxBytes: decodedCap(meta, maxBytes) },
      );
      decoder.catch(() => {
        this.#decoder = null;
      });
      return decoder;
    }

    async encode(bytes) {
      if (!encoderLoader)
        throw new Error(
          `zarr-wasm decodes ${name} but does not encode it, and zarrita had no encoder of that name`,
        );
      this.#encoder ??= Promise.resolve(encoderLoader()).then((Encoder) =>
        Encoder.fromConfig(this.#configuration, this.#meta),
      );
      return (await this.#encoder).encode(bytes);
    }
  };
}

/**
 * A zarrita store (keys like "/zarr.json": `FetchStore`, a `Map`, anything with `get` and
 * optionally `getRange` in zarrita's signature) as a zarr-wasm store.
 */
export function zarritaStore(store) {
  if (typeof store?.get !== "function")
    throw new TypeError("zarritaStore needs a zarrita store: an object with get(key, options)");
  const absolute = (key) => `/${key}`;
  // zarrita's FetchStore takes request options (a signal among them) as fetch's init.
  const requestOptions = (options) => (options?.signal ? { signal: options.signal } : undefined);
  const adapted = {
    get: (key, options) => store.get(absolute(key), requestOptions(options)),
    url: String(store.url ?? "a zarrita store"),
  };
  if (typeof store.getRange === "function") {
    adapted.getRange = async (key, range, options) => {
      // zarrita's ranges have a length; a range to the end is cut from the whole value.
      if ("offset" in range && range.length === undefined) {
        const whole = await store.get(absolute(key), requestOptions(options));
        return whole?.subarray(Math.min(range.offset, whole.length));
      }
      return store.getRange(absolute(key), range, requestOptions(options));
    };
  }
  if (typeof store.keys === "function") {
    adapted.keys = function* () {
      for (const key of store.keys()) if (key.startsWith("/")) yield key.slice(1);
    };
  }
  return adapted;
}
