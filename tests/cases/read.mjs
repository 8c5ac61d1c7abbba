// Reads of the zarr-python fixtures, defined once and run by Node (tests/node) and by headless
// Chromium (tests/browser). Each case is `{ name, run(ctx) }`; ctx comes from context.mjs.
import { safetyCases } from "./safety.mjs";
import { stressCases } from "./stress.mjs";
import { bytesOf, deepEqual, equal, ok, rejects, sameBytes } from "../support/check.mjs";
import { v2Cases } from "./read_v2.mjs";
import { storeCases } from "./stores.mjs";
import { apiCases } from "./api.mjs";
import { workerCases } from "./workers.mjs";
import { vectorCases } from "./vectors.mjs";

// float16 is a Float16Array where the runtime has one (Chromium), else a Float32Array (Node 20).
const TYPED = {
  bool: Uint8Array,
  int8: Int8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
  uint64: BigUint64Array,
  float16: globalThis.Float16Array ?? Float32Array,
  float32: Float32Array,
  float64: Float64Array,
  complex64: Float32Array,
  complex128: Float64Array,
};
const typedFor = (dtype) =>
  TYPED[dtype] ??
  (/^r\d+$/.test(dtype)
    ? Uint8Array
    : /^(datetime|timedelta)64\[/.test(dtype)
      ? BigInt64Array
      : ["string", "variable_length_bytes"].includes(dtype) || /^[SU]\d+$/.test(dtype)
        ? Array
        : dtype === "structured"
          ? Object
          : undefined);

/** Fixed-length strings as NumPy reads them: trailing NULs dropped; S as UTF-8, U as UTF-32LE. */
function fixedStrings(bytes, dtype) {
  const n = Number(dtype.slice(1)) * (dtype[0] === "U" ? 4 : 1);
  const out = [];
  for (let at = 0; at < bytes.length; at += n) {
    const element = bytes.subarray(at, at + n);
    if (dtype[0] === "S") {
      let end = element.length;
      while (end > 0 && element[end - 1] === 0) end--;
      out.push(new TextDecoder().decode(element.subarray(0, end)));
    } else {
      const view = new DataView(element.buffer, element.byteOffset, element.byteLength);
      const points = [];
      for (let i = 0; i < element.length; i += 4) points.push(view.getUint32(i, true));
      while (points.length && points[points.length - 1] === 0) points.pop();
      out.push(
        points
          .map((p) =>
            p <= 0x10ffff && (p < 0xd800 || p > 0xdfff) ? String.fromCodePoint(p) : "\ufffd",
          )
          .join(""),
      );
    }
  }
  return out;
}

/** One stored value of a NumPy type string (`<f4`, `>i2`, `|b1`, `<M8[s]`...) at `at`, as JS gives it. */
function readNumpy(view, at, numpy) {
  const little = numpy[0] !== ">";
  const code = numpy.slice(1);
  const readers = {
    b1: () => view.getUint8(at),
    u1: () => view.getUint8(at),
    i1: () => view.getInt8(at),
    i2: () => view.getInt16(at, little),
    u2: () => view.getUint16(at, little),
    i4: () => view.getInt32(at, little),
    u4: () => view.getUint32(at, little),
    i8: () => view.getBigInt64(at, little),
    u8: () => view.getBigUint64(at, little),
    f4: () => view.getFloat32(at, little),
    f8: () => view.getFloat64(at, little),
    c8: () => [view.getFloat32(at, little), view.getFloat32(at + 4, little)],
    c16: () => [view.getFloat64(at, little), view.getFloat64(at + 8, little)],
  };
  if (/^[Mm]8\[/.test(code)) return view.getBigInt64(at, little);
  const read = readers[code];
  if (!read) throw new Error(`no reader for ${numpy}`);
  return read();
}

const NUMPY_SIZES = {
  b1: 1,
  u1: 1,
  i1: 1,
  i2: 2,
  u2: 2,
  i4: 4,
  u4: 4,
  i8: 8,
  u8: 8,
  f4: 4,
  f8: 8,
  c8: 8,
  c16: 16,
};
function numpySize(numpy) {
  const code = numpy.slice(1);
  if (/^[Mm]8\[/.test(code)) return 8;
  if (/^[SUV]\d+$/.test(code)) return Number(code.slice(1)) * (code[0] === "U" ? 4 : 1);
  return NUMPY_SIZES[code];
}

function recordSize(fields) {
  return Math.max(
    ...fields.map((f) => f.offset + fieldItemSize(f) * f.shape.reduce((a, b) => a * b, 1)),
  );
}
const fieldItemSize = (f) => (f.fields ? recordSize(f.fields) : numpySize(f.numpy));

/** Compares a structured result's fields with stored records, read here field by field with DataView. */
function sameRecords(data, records, starts, fields, what) {
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  for (const f of fields) {
    const count = f.shape.reduce((a, b) => a * b, 1);
    const size = fieldItemSize(f);
    const items = starts.flatMap((s) =>
      Array.from({ length: count }, (_, k) => s + f.offset + k * size),
    );
    const got = data[f.name];
    ok(got !== undefined, `${what}: field ${f.name} is missing`);
    if (f.fields) {
      sameRecords(got, records, items, f.fields, `${what}.${f.name}`);
    } else if (/^[SU]\d+$/.test(f.dtype)) {
      const bytes = Uint8Array.from(
        items.flatMap((at) => Array.from(records.subarray(at, at + size))),
      );
      deepEqual(got, fixedStrings(bytes, f.dtype), `${what}.${f.name}`);
    } else {
      const want = items.flatMap((at) => [readNumpy(view, at, f.numpy)].flat());
      equal(got.length, want.length, `${what}.${f.name}: length`);
      want.forEach((w, i) =>
        ok(
          // biome-ignore lint/suspicious/noDoubleEquals: a BigInt field and the JSON number it should be
          Object.is(got[i], w) || (Number.isNaN(got[i]) && Number.isNaN(w)) || got[i] == w,
          `${what}.${f.name}[${i}]: expected ${w}, got ${got[i]}`,
        ),
      );
    }
  }
}

/** Items of the manifest's vlen layout (u32 count, then u32 length + bytes each), as strings or bytes. */
function vlenItems(bytes, asStrings) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const items = [];
  let pos = 4;
  for (let i = 0; i < view.getUint32(0, true); i++) {
    const len = view.getUint32(pos, true);
    const item = bytes.slice(pos + 4, pos + 4 + len);
    items.push(asStrings ? new TextDecoder().decode(item) : item);
    pos += 4 + len;
  }
  return items;
}

/** An IEEE binary16 bit pattern as a number, decoded here independently of the library. */
function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** Compares values with the expected little-endian bytes; float16 read as Float32Array compares values. */
function sameValues(data, expected, dtype, what, entry) {
  if (dtype === "structured") {
    const size = recordSize(entry.fields);
    const starts = Array.from({ length: expected.length / size }, (_, i) => i * size);
    sameRecords(data, expected, starts, entry.fields, what);
    return;
  }
  if (/^[SU]\d+$/.test(dtype)) {
    deepEqual(data, fixedStrings(expected, dtype), what);
    return;
  }
  if (dtype === "string" || dtype === "variable_length_bytes") {
    const want = vlenItems(expected, dtype === "string");
    equal(data.length, want.length, `${what}: length`);
    want.forEach((w, i) =>
      dtype === "string"
        ? equal(data[i], w, `${what}: element ${i}`)
        : sameBytes(data[i], w, `${what}: element ${i}`),
    );
    return;
  }
  if (dtype === "float16" && data instanceof Float32Array) {
    const bits = new Uint16Array(expected.buffer, expected.byteOffset, expected.byteLength / 2);
    equal(data.length, bits.length, `${what}: length`);
    bits.forEach((b, i) =>
      ok(
        Object.is(data[i], halfToNumber(b)) ||
          (Number.isNaN(data[i]) && Number.isNaN(halfToNumber(b))),
        `${what}: element ${i} is ${data[i]}, expected ${halfToNumber(b)}`,
      ),
    );
    return;
  }
  sameBytes(bytesOf(data), expected, what);
}

function cStrides(shape) {
  const s = shape.map(() => 1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

async function openArray(ctx, path, store = "v3.zarr") {
  const node = await ctx.zarr.open(`${ctx.base}/${store}`, { path });
  equal(node.kind, "array", `${path} kind`);
  return node;
}

function expectedFill(entry) {
  const number = (f) => ({ NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity })[f] ?? f;
  const f = entry.fill_value;
  if (f === null) return null;
  if (/^(datetime|timedelta)64\[/.test(entry.dtype)) return BigInt(f);
  if (/^[SU]\d+$/.test(entry.dtype)) return f;
  if (entry.dtype === "variable_length_bytes")
    return Uint8Array.from(atob(f), (c) => c.charCodeAt(0));
  if (entry.dtype === "string") return f;
  if (entry.dtype === "int64" || entry.dtype === "uint64") return BigInt(f);
  if (Array.isArray(f)) return f.map(number);
  return number(f);
}

/** The manifest's field table less the NumPy type strings only the tests use. */
const withoutNumpy = (fields) =>
  fields.map(({ numpy, ...f }) => ({
    ...f,
    ...(f.fields ? { fields: withoutNumpy(f.fields) } : {}),
  }));

function sameFill(actual, expected, what) {
  if (expected instanceof Uint8Array) {
    sameBytes(actual, expected, what);
  } else if (Array.isArray(expected)) {
    const got = Array.from(actual);
    equal(got.length, expected.length, `${what} length`);
    expected.forEach((e, i) =>
      ok(Object.is(got[i], e), `${what}[${i}]: expected ${e}, got ${got[i]}`),
    );
  } else {
    equal(actual, expected, what);
  }
}

function wholeArrayCase(entry) {
  return {
    name: `reads ${entry.store}/${entry.path} (${entry.dtype}, shape [${entry.shape}], ${entry.writer}) byte for byte`,
    async run(ctx) {
      const arr = await openArray(ctx, entry.path, entry.store);
      equal(arr.path, entry.path, "path");
      equal(arr.zarrFormat, entry.zarr_format ?? 3, "zarrFormat");
      equal(arr.dtype, entry.dtype, "dtype");
      deepEqual(arr.shape, entry.shape, "shape");
      deepEqual(arr.chunks, entry.chunks, "chunks");
      equal(arr.chunkGrid, entry.chunks ? "regular" : "rectilinear", "chunkGrid");
      sameFill(arr.fillValue, expectedFill(entry), "fillValue");
      deepEqual(arr.attrs, entry.attrs, "attrs");
      deepEqual(arr.dimensionNames, entry.dimension_names, "dimensionNames");
      equal(arr.timeUnit, entry.time_unit, "timeUnit");
      if (entry.fields) deepEqual(arr.fields, withoutNumpy(entry.fields), "fields");
      const { data, shape, stride } = await arr.get();
      // By its prototype: a record's own "constructor" field would hide data.constructor.
      equal(Object.getPrototypeOf(data).constructor, typedFor(entry.dtype), "typed array type");
      deepEqual(shape, entry.shape, "result shape");
      deepEqual(stride, cStrides(entry.shape), "result stride");
      sameValues(data, await ctx.bytes(entry.data), entry.dtype, "values", entry);
    },
  };
}

const chunkRequests = (log) =>
  log.filter((r) => /\/c[/.]/.test(r.path) || /\/\d+[./]\d+$/.test(r.path));

const cases = [
  {
    name: "opening a v3 node costs one request",
    async run(ctx) {
      await ctx.clearLog();
      await openArray(ctx, "layouts/named");
      const log = await ctx.requests();
      deepEqual(
        log.map((r) => `${r.method} ${r.path}`),
        ["GET /tests/fixtures/v3.zarr/layouts/named/zarr.json"],
        "requests",
      );
    },
  },
  {
    name: "a whole read fetches every chunk exactly once, and a selection only the chunks it touches",
    async run(ctx) {
      const { slice } = ctx.zarr;
      const arr = await openArray(ctx, "dtypes/uint16"); // 13x11 in 5x4 chunks: a 3x3 grid
      await ctx.clearLog();
      await arr.get();
      const whole = chunkRequests(await ctx.requests()).map((r) => r.path);
      equal(whole.length, 9, "chunk requests for a whole read");
      equal(new Set(whole).size, 9, "distinct chunks");
      await ctx.clearLog();
      await arr.get([slice(0, 5), slice(0, 4)]);
      deepEqual(
        chunkRequests(await ctx.requests()).map((r) => r.path),
        ["/tests/fixtures/v3.zarr/dtypes/uint16/c/0/0"],
        "one chunk",
      );
      await ctx.clearLog();
      await arr.get([7, null]);
      equal(chunkRequests(await ctx.requests()).length, 3, "a row crosses three chunks");
    },
  },
  {
    name: "slices, steps, negative indices and dropped axes select the right elements",
    async run(ctx) {
      const { slice } = ctx.zarr;
      const arr = await openArray(ctx, "layouts/d3"); // int32 [7, 6, 5] in [3, 4, 2] chunks
      const whole = (await arr.get()).data;
      const at = (i, j, k) => whole[(i * 6 + j) * 5 + k];
      const check = async (selection, picks, shape, what) => {
        const r = await arr.get(selection);
        deepEqual(r.shape, shape, `${what} shape`);
        deepEqual(Array.from(r.data), picks, `${what} values`);
      };
      const rows = (is, j, ks) => is.flatMap((i) => ks.map((k) => at(i, j, k)));
      await check(
        [slice(1, 7, 2), -2, slice(null, -1)],
        rows([1, 3, 5], 4, [0, 1, 2, 3]),
        [3, 4],
        "step and negative",
      );
      await check([6, 5, 4], [at(6, 5, 4)], [], "a single element");
      await check(
        [slice(2, 4), slice(1, 3), 0],
        [at(2, 1, 0), at(2, 2, 0), at(3, 1, 0), at(3, 2, 0)],
        [2, 2],
        "across chunks",
      );
      await check([slice(5, 2)], [], [0, 6, 5], "an empty slice");
      await check([null, slice(100, 200)], [], [7, 0, 5], "a slice past the end");
      await check(
        [slice(5, undefined), 0, 0],
        [at(5, 0, 0), at(6, 0, 0)],
        [2],
        "slice(5, undefined) is 5:",
      );
      await check([slice(2), 0, 0], [at(0, 0, 0), at(1, 0, 0)], [2], "slice(2) is :2");
      const full = await arr.get([null, null, null]);
      deepEqual(Array.from(full.data), Array.from(whole), "nulls read everything");
    },
  },
  {
    name: "getChunk returns stored chunks whole, and missing chunks as the fill value",
    async run(ctx) {
      const arr = await openArray(ctx, "dtypes/uint16");
      const expected = new Uint16Array(
        (await ctx.bytes("v3.expected/v3__dtypes__uint16.bin")).buffer,
      );
      const edge = await arr.getChunk([2, 2]); // rows 10..14, cols 8..11 of a 13x11 array
      deepEqual(edge.shape, [5, 4], "edge chunk keeps the stored shape");
      deepEqual(edge.stride, [4, 1], "stride");
      for (let r = 0; r < 3; r++)
        for (let c = 0; c < 3; c++)
          equal(edge.data[r * 4 + c], expected[(10 + r) * 11 + 8 + c], `element ${r},${c}`);
      const sparse = await openArray(ctx, "sparse/int_fill");
      const missing = await sparse.getChunk([3, 0]);
      deepEqual(missing.shape, [10, 10], "missing chunk shape");
      ok(
        missing.data.every((v) => v === 42),
        "a missing chunk is all fill value",
      );
    },
  },
  {
    name: "groups open by URL, URL object or FetchStore, show attributes and open children",
    async run(ctx) {
      const { open, FetchStore } = ctx.zarr;
      const root = await open(`${ctx.base}/v3.zarr`);
      equal(root.kind, "group", "root kind");
      equal(root.path, "", "root path");
      deepEqual(
        root.attrs,
        { title: "zarr-wasm v3 fixtures", writer: "zarr-python 3.1.6" },
        "root attrs",
      );
      const deeper = await root.open("nested/deeper");
      equal(deeper.kind, "group", "nested kind");
      deepEqual(deeper.attrs, { depth: 2 }, "nested attrs");
      const leaf = await deeper.open("leaf");
      equal(leaf.path, "nested/deeper/leaf", "leaf path");
      const viaStore = await open(new FetchStore(`${ctx.base}/v3.zarr/`), {
        path: "/nested/deeper/leaf/",
      });
      equal(viaStore.path, "nested/deeper/leaf", "path normalised");
      const viaUrl = await open(new URL(`${ctx.base}/v3.zarr`), { path: "layouts/scalar" });
      deepEqual((await viaUrl.get()).shape, [], "scalar shape");
      equal((await viaUrl.get()).data[0], 7, "scalar value");
    },
  },
  {
    name: "missing nodes, bad metadata and unsupported features reject with errors naming the URL",
    async run(ctx) {
      const { open } = ctx.zarr;
      const bad = `${ctx.base}/bad.zarr`;
      await rejects(
        open(bad, { path: "no/such/node" }),
        "NotFoundError",
        [/bad\.zarr\/no\/such\/node\/zarr\.json/],
        "missing",
      );
      await rejects(
        open(bad, { path: "not_json" }),
        "MetadataError",
        [/not_json\/zarr\.json/, /not valid JSON/],
        "not JSON",
      );
      await rejects(
        open(bad, { path: "not_zarr" }),
        "MetadataError",
        [/not_zarr\/zarr\.json/, /zarr_format/],
        "not Zarr",
      );
      await rejects(
        open(bad, { path: "unknown_codec" }),
        "UnsupportedError",
        [/unknown_codec\/zarr\.json/, /codec "frobnicate"/],
        "codec",
      );
      await rejects(
        open(bad, { path: "unknown_dtype" }),
        "UnsupportedError",
        [/unknown_dtype\/zarr\.json/, /uint7/],
        "dtype",
      );
      await rejects(open(bad, { path: "../escape" }), "SelectionError", [/period/], "path escape");
      await rejects(
        open(`${ctx.origin}/__status/500/tests/fixtures/v3.zarr`),
        "StoreError",
        [/500/, /__status\/500\/tests\/fixtures\/v3\.zarr\/zarr\.json/],
        "HTTP 500",
      );
    },
  },
  {
    name: "corrupt chunks reject with the codec and the chunk URL; other chunks still read",
    async run(ctx) {
      const { open } = ctx.zarr;
      for (const [name, codec, problem] of [
        ["truncated_gzip", "gzip", /truncated/],
        ["corrupt_gzip", "gzip", /DEFLATE|CRC|gzip/],
        ["wrong_size", "bytes", /35 bytes, expected 32/],
      ]) {
        const arr = await open(`${ctx.base}/bad.zarr`, { path: name });
        await rejects(
          arr.get(),
          "CodecError",
          [new RegExp(`codec ${codec}`), new RegExp(`bad\\.zarr/${name}/c/0/0`), problem],
          name,
        );
        equal((await arr.getChunk([1, 1])).data.length, 16, `${name}: an intact chunk`);
      }
    },
  },
  {
    name: "damaged Blosc, zstd, LZ4 and zlib chunks reject with the codec, the chunk URL and the problem",
    async run(ctx) {
      const { open } = ctx.zarr;
      for (const [name, codec, problem] of [
        [
          "truncated_blosc",
          "blosc",
          /Blosc chunk is truncated: the header says \d+ bytes, there are \d+/,
        ],
        [
          "blosc_wrong_nbytes",
          "blosc",
          /header says 4096 decoded bytes, the chunk should have 2048/,
        ],
        [
          "blosc_bad_offset",
          "blosc",
          /block 0 of 1 \(zstd compressor\): its offset 999999 is outside/,
        ],
        ["blosc_version3", "blosc", /Blosc format version 3 is not supported/],
        ["corrupt_blosc_stream", "blosc", /block 0 of 1 \(lz4 compressor\): stream 1/],
        ["truncated_zstd", "zstd", /frame 0 is truncated/],
        ["zstd_checksum_mismatch", "zstd", /content checksum 0x[0-9a-f]{8} does not match/],
        ["truncated_lz4", "numcodecs.lz4", /LZ4 block is invalid/],
        ["zlib_adler_mismatch", "numcodecs.zlib", /Adler-32 checksum mismatch/],
        ["shard_index_crc", "sharding_indexed", /index: codec crc32c/],
      ]) {
        const arr = await open(`${ctx.base}/bad.zarr`, { path: name });
        await rejects(
          arr.get(),
          "CodecError",
          [new RegExp(`codec ${codec}`), new RegExp(`bad\\.zarr/${name}/c/0/0`), problem],
          name,
        );
        equal((await arr.getChunk([1, 1])).data.length, 32 * 32, `${name}: an intact chunk`);
      }
    },
  },
  {
    name: "a cold read of one element of a sharded array costs 3 requests: metadata, index (suffix range), inner chunk",
    async run(ctx) {
      const { open } = ctx.zarr;
      await ctx.clearLog();
      const arr = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" });
      const { data } = await arr.get([40, 45]);
      const log = await ctx.requests();
      deepEqual(
        log
          .map((r) =>
            `${r.method} ${r.path.replace(/.*codecs\.zarr\//, "")} ${r.range ?? ""}`.trim(),
          )
          .slice(0, 2),
        ["GET sharding/index_end/zarr.json", "GET sharding/index_end/c/1/1 bytes=-260"],
        "metadata, then the index from the end",
      );
      equal(log.length, 3, `requests: ${JSON.stringify(log)}`);
      ok(/^bytes=\d+-\d+$/.test(log[2].range), `one inner chunk range: ${log[2].range}`);
      const whole = (await arr.get()).data;
      equal(data[0], whole[40 * 60 + 45], "value");
    },
  },
  {
    name: "sharded reads: index at the start, adjacent inner chunks in one request, one index fetch for concurrent reads",
    async run(ctx) {
      const { open, slice } = ctx.zarr;
      const start = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_start" });
      await ctx.clearLog();
      await start.get([3, 50]);
      const startLog = await ctx.requests();
      equal(startLog[0].range, "bytes=0-131", "the index is read from the start");
      equal(startLog.length, 2, "index and one inner chunk");

      const arr = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" });
      const whole = (await arr.get()).data;
      const fresh = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" });
      await ctx.clearLog();
      const row = await fresh.get([3, slice(0, 32)]);
      deepEqual(
        Array.from(row.data),
        Array.from(whole.subarray(3 * 60, 3 * 60 + 32)),
        "a row across four inner chunks",
      );
      equal((await ctx.requests()).length, 2, "the index and one merged range");

      const cold = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" });
      await ctx.clearLog();
      const [a, b] = await Promise.all([cold.get([33, 1]), cold.get([49, 17])]);
      equal(a.data[0], whole[33 * 60 + 1], "first read");
      equal(b.data[0], whole[49 * 60 + 17], "second read");
      const indexRequests = (await ctx.requests()).filter((r) => r.range?.startsWith("bytes=-"));
      equal(indexRequests.length, 1, "one index request for both reads");

      // Reads started together share their range requests too: four elements in the four inner
      // chunks of one inner row (adjacent in the shard) cost the index and one merged range.
      const batched = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" });
      await ctx.clearLog();
      const got = await Promise.all([1, 9, 17, 25].map((x) => batched.get([2, x])));
      got.forEach((g, i) => equal(g.data[0], whole[2 * 60 + [1, 9, 17, 25][i]], `read ${i}`));
      equal((await ctx.requests()).length, 2, "the index and one batched range for four reads");
    },
  },
  {
    name: "sharded reads: mergeGap and indexCacheSize are the store's to set; nested shards cost 3 requests cold",
    async run(ctx) {
      const { open, FetchStore } = ctx.zarr;
      const data = (log) => log.filter((r) => r.range && !r.range.startsWith("bytes=-")).length;
      const corners = async (options) => {
        const arr = await open(new FetchStore(`${ctx.base}/codecs.zarr`, options), {
          path: "sharding/index_end",
        });
        await ctx.clearLog();
        await Promise.all([arr.get([0, 0]), arr.get([31, 31])]); // first and last inner chunk of shard (0, 0)
        return data(await ctx.requests());
      };
      // The shard's 16 inner chunks of 8 x 8 zstd take under 4 KiB: the default gap spans them.
      equal(await corners({}), 1, "within the default gap: one range");
      equal(await corners({ mergeGap: 0 }), 2, "with no gap: two ranges");

      const arr = await open(new FetchStore(`${ctx.base}/codecs.zarr`, { indexCacheSize: 1 }), {
        path: "sharding/index_end",
      });
      await ctx.clearLog();
      for (const [y, x] of [
        [0, 0],
        [40, 40],
        [0, 1],
      ])
        await arr.get([y, x]);
      equal(
        (await ctx.requests()).filter((r) => r.range?.startsWith("bytes=-")).length,
        3,
        "one cached index: shard (0, 0) read again",
      );

      const kind = (r) =>
        r.range === null ? "whole" : r.range.startsWith("bytes=-") ? "suffix" : "span";
      const whole = (
        await open(`${ctx.base}/codecs.zarr`, { path: "sharding/nested" }).then((a) => a.get())
      ).data;
      await ctx.clearLog();
      const nested = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/nested" });
      equal((await nested.get([20, 30])).data[0], whole[20 * 40 + 30], "a value in a nested shard");
      deepEqual(
        (await ctx.requests()).map(kind),
        ["whole", "suffix", "span"],
        "metadata, the outer index, the inner shard",
      );
    },
  },
  {
    name: "a server without suffix ranges: HEAD + range once it refuses, remembered; or chosen up front",
    async run(ctx) {
      const { open, FetchStore } = ctx.zarr;
      const where = (r) => `${r.method} ${r.range ?? ""}`.trim();
      const arr = await open(`${ctx.origin}/__nosuffix/tests/fixtures/codecs.zarr`, {
        path: "sharding/index_end",
      });
      const whole = (
        await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" }).then((a) => a.get())
      ).data;
      await ctx.clearLog();
      equal((await arr.get([40, 45])).data[0], whole[40 * 60 + 45], "value");
      const first = (await ctx.requests()).map(where);
      deepEqual(
        first.slice(0, 4),
        ["GET bytes=-260", "HEAD", first[2], first[3]],
        "suffix refused, then HEAD and ranges",
      );
      equal(first.length, 4, `requests: ${first}`);
      await ctx.clearLog();
      equal((await arr.get([3, 3])).data[0], whole[3 * 60 + 3], "another shard");
      ok(
        (await ctx.requests()).every((r) => !r.range?.startsWith("bytes=-")),
        "no second suffix request",
      );

      const noSuffix = await open(
        new FetchStore(`${ctx.base}/codecs.zarr`, { suffixRequests: false }),
        { path: "sharding/index_end" },
      );
      await ctx.clearLog();
      equal(
        (await noSuffix.get([40, 45])).data[0],
        whole[40 * 60 + 45],
        "value without suffix requests",
      );
      deepEqual(
        (await ctx.requests()).map((r) => r.method),
        ["HEAD", "GET", "GET"],
        "HEAD, index range, chunk range",
      );

      const noLength = await open(
        new FetchStore(`${ctx.origin}/__nolength/tests/fixtures/codecs.zarr`, {
          suffixRequests: false,
        }),
        { path: "sharding/index_end" },
      );
      await rejects(
        noLength.get([40, 45]),
        "StoreError",
        [/no Content-Length/, /index_end\/c\/1\/1/],
        "HEAD without a length",
      );
    },
  },
  {
    name: "a server that ignores Range still gives the right values, and is not asked for ranges again",
    async run(ctx) {
      const { open } = ctx.zarr;
      const arr = await open(`${ctx.origin}/__norange/tests/fixtures/codecs.zarr`, {
        path: "sharding/index_end",
      });
      const whole = (
        await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" }).then((a) => a.get())
      ).data;
      await ctx.clearLog();
      equal((await arr.get([40, 45])).data[0], whole[40 * 60 + 45], "first value");
      equal((await arr.get([10, 50])).data[0], whole[10 * 60 + 50], "second value");
      const log = await ctx.requests();
      equal(log[0].range, "bytes=-260", "the first index request asks for a range");
      ok(
        log.slice(1).every((r) => r.range === null),
        `then whole values: ${JSON.stringify(log)}`,
      );
    },
  },
  {
    name: "5xx answers are retried; 403 reads as missing only when asked; headers and a custom fetch are used",
    async run(ctx) {
      const { open, FetchStore } = ctx.zarr;
      await ctx.clearLog();
      const flaky = await open(`${ctx.origin}/__flaky/2/tests/fixtures/v3.zarr`, {
        path: "dtypes/uint16",
      });
      equal(flaky.shape.join(), "13,11", "opened after two 503s");
      deepEqual(
        (await ctx.requests()).map((r) => r.status),
        [503, 503, 200],
        "retried",
      );
      await rejects(
        open(new FetchStore(`${ctx.origin}/__flaky/5/tests/fixtures/v3.zarr`, { retries: 1 }), {
          path: "dtypes/int8",
        }),
        "StoreError",
        [/503/, /after 2 tries/],
        "retries run out",
      );

      const forbidden = `${ctx.origin}/__status/403/tests/fixtures/v3.zarr`;
      await rejects(
        open(forbidden, { path: "x" }),
        "StoreError",
        [/403/],
        "403 is an error by default",
      );
      await rejects(
        open(new FetchStore(forbidden, { treat403AsMissing: true }), { path: "x" }),
        "NotFoundError",
        [/x\/zarr\.json/],
        "403 as missing",
      );

      let calls = 0;
      const store = new FetchStore(`${ctx.base}/v3.zarr`, {
        headers: { "X-Token": "secret" },
        fetch: (request) => {
          calls++;
          return fetch(request);
        },
      });
      await ctx.clearLog();
      const arr = await open(store, { path: "dtypes/uint16" });
      await arr.get([0, 0]);
      const log = await ctx.requests();
      ok(
        log.length >= 2 && log.every((r) => r.token === "secret"),
        `every request carries the header: ${JSON.stringify(log)}`,
      );
      equal(calls, log.length, "every request went through the custom fetch");
      await rejects(
        open(new FetchStore(`${ctx.base}/v3.zarr`, { retries: "3" })),
        "SelectionError",
        [/retries must be an integer/],
        "bad option",
      );
    },
  },
  {
    name: "a store keeps at most maxRequests requests in flight",
    async run(ctx) {
      const { open, FetchStore } = ctx.zarr;
      const slow = `${ctx.origin}/__slow/20/tests/fixtures/v3.zarr`;
      const peak = async (store) => {
        const arr = await open(store, { path: "layouts/many_chunks" }); // 16 x 16 chunks
        await ctx.clearLog();
        await arr.get();
        const log = await ctx.requests();
        equal(log.length, 256, "one request per chunk");
        return Math.max(...log.map((r) => r.active));
      };
      const limited = await peak(new FetchStore(slow, { maxRequests: 3 }));
      ok(limited <= 3, `at most 3 at once, saw ${limited}`);
      const unlimited = await peak(new FetchStore(slow));
      ok(
        unlimited > 3,
        `the default allows more (saw ${unlimited}), so the measure can see a limit`,
      );
    },
  },
  {
    name: "an AbortSignal cancels a read's pending requests, spares the reads sharing them, and the next read works",
    async run(ctx) {
      const { open } = ctx.zarr;
      const wait = (ms) => new Promise((r) => setTimeout(r, ms));
      const slow = `${ctx.origin}/__slow/300/tests/fixtures/v3.zarr`;
      const arr = await open(slow, { path: "layouts/many_chunks" }); // 256 chunks
      const controller = new AbortController();
      await ctx.clearLog();
      const read = arr.get(null, { signal: controller.signal });
      await wait(100);
      controller.abort();
      await rejects(
        read,
        "AbortError",
        [/many_chunks\/c\/\d+\/\d+/, /aborted/],
        "the aborted read",
      );
      await wait(100);
      equal(await ctx.active(), 0, "no request is left in progress");
      const sent = (await ctx.requests()).length;
      ok(sent > 0 && sent < 256, `requests past the limit were never sent (${sent})`);
      const again = await arr.get([0, 0]);
      equal(again.shape.length, 0, "the next read works");

      const gone = new AbortController();
      gone.abort();
      await rejects(
        open(slow, { path: "layouts/d1", signal: gone.signal }),
        "AbortError",
        [/layouts\/d1/, /aborted/],
        "open with an aborted signal",
      );

      const sharded = await open(`${ctx.origin}/__slow/200/tests/fixtures/codecs.zarr`, {
        path: "sharding/index_end",
      });
      const whole = (
        await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" }).then((a) => a.get())
      ).data;
      const first = new AbortController();
      const aborted = sharded.get([40, 45], { signal: first.signal });
      const spared = sharded.get([41, 46]);
      await wait(50);
      first.abort();
      await rejects(aborted, "AbortError", [/aborted/], "the aborted read of a shard");
      equal(
        (await spared).data[0],
        whole[41 * 60 + 46],
        "the read that shared its index request still reads",
      );
    },
  },
  {
    name: "bad selections reject with SelectionError",
    async run(ctx) {
      const { slice } = ctx.zarr;
      const arr = await openArray(ctx, "dtypes/uint16");
      await rejects(
        arr.get([13]),
        "SelectionError",
        [/index 13 is out of bounds for dimension 0 of length 13/],
        "index",
      );
      await rejects(arr.get([-14]), "SelectionError", [/out of bounds/], "negative index");
      await rejects(
        arr.get([0, 0, 0]),
        "SelectionError",
        [/3 dimensions selected, the array has 2/],
        "rank",
      );
      await rejects(arr.get([1.5]), "SelectionError", [/integer/], "fraction");
      await rejects(arr.get([slice(0, 5, -1)]), "SelectionError", [/step/], "negative step");
      await rejects(arr.get(["x"]), "SelectionError", [/number/], "string");
      await rejects(
        arr.getChunk([3, 0]),
        "SelectionError",
        [/outside the chunk grid/, /dtypes\/uint16\/zarr\.json/],
        "chunk",
      );
      await rejects(
        arr.getChunk([0]),
        "SelectionError",
        [/1 chunk coordinates given, the array has 2/],
        "chunk rank",
      );
      await rejects(arr.get([[1, 2]]), "SelectionError", [/is a list/], "a list is not a slice");
      await rejects(
        arr.get([{ begin: 1 }]),
        "SelectionError",
        [/key "begin"/],
        "unknown slice key",
      );
      await rejects(
        arr.get(new Array(2 ** 32 - 1)),
        "SelectionError",
        [/4294967295 dimensions selected/],
        "an enormous empty array",
      );
    },
  },
  {
    name: "after every kind of failure the same module instance still reads good data",
    async run(ctx) {
      const { open } = ctx.zarr;
      const failures = [
        open(`${ctx.base}/bad.zarr`, { path: "not_json" }),
        open(`${ctx.base}/bad.zarr`, { path: "corrupt_gzip" }).then((a) => a.get()),
        open(`${ctx.base}/bad.zarr`, { path: "truncated_gzip" }).then((a) => a.get()),
        open(`${ctx.base}/bad.zarr`, { path: "wrong_size" }).then((a) => a.get()),
        open(`${ctx.origin}/__status/500/x.zarr`),
        openArray(ctx, "dtypes/int8").then((a) => a.get([99])),
      ];
      for (const f of await Promise.allSettled(failures))
        equal(f.status, "rejected", "each failure rejects");
      const arr = await openArray(ctx, "dtypes/float64");
      sameBytes(
        bytesOf((await arr.get()).data),
        await ctx.bytes("v3.expected/v3__dtypes__float64.bin"),
        "values after failures",
      );
    },
  },
];

cases.push(
  {
    name: "consolidated metadata opens the whole hierarchy with one request and lists children",
    async run(ctx) {
      const { open } = ctx.zarr;
      await ctx.clearLog();
      const root = await open(`${ctx.base}/consolidated.zarr`);
      deepEqual(
        root.children,
        [
          { name: "images", path: "images", kind: "group" },
          { name: "table", path: "table", kind: "array" },
        ],
        "root children",
      );
      const images = await root.open("images");
      deepEqual(images.attrs, { kind: "images" }, "child attrs");
      deepEqual(
        images.children.map((c) => c.name),
        ["labels", "more", "raw"],
        "grandchildren",
      );
      const raw = await images.open("raw");
      deepEqual(raw.shape, [16, 16], "array from consolidated metadata");
      const deep = await images.open("more/deep");
      equal(deep.kind, "group", "deep group");
      deepEqual(deep.children, [], "leaf group has no children");
      await rejects(
        root.open("images/nope"),
        "NotFoundError",
        [/consolidated metadata/, /images\/nope/],
        "unlisted",
      );
      const log = await ctx.requests();
      deepEqual(
        log.map((r) => r.path),
        ["/tests/fixtures/consolidated.zarr/zarr.json"],
        "one request in all",
      );
      equal((await root.open("")).kind, "group", "opening '' is the group itself");
      const plain = await open(`${ctx.base}/v3.zarr`);
      equal(plain.children, null, "without consolidated metadata, children are unknown");
    },
  },
  {
    name: "rectilinear grids expose each chunk's extent and read missing chunks as fill",
    async run(ctx) {
      const { slice } = ctx.zarr;
      const arr = await openArray(ctx, "irregular_2d", "handmade.zarr");
      equal(arr.chunks, null, "no regular chunk shape");
      deepEqual(arr.gridShape, [5, 3], "grid shape");
      deepEqual(arr.chunkExtent([2, 1]), { origin: [4, 4], shape: [2, 4] }, "extent of chunk 2,1");
      deepEqual(
        arr.chunkExtent([4, 2]),
        { origin: [8, 8], shape: [2, 9] },
        "overflowing last chunk",
      );
      const missing = await arr.getChunk([1, 2]);
      deepEqual(missing.shape, [1, 9], "missing chunk shape");
      ok(
        missing.data.every((v) => v === -1),
        "missing chunk is fill",
      );
      const whole = (await arr.get()).data;
      const part = await arr.get([slice(2, 9, 3), slice(3, 9, 2)]);
      deepEqual(
        Array.from(part.data),
        [2, 5, 8].flatMap((i) => [3, 5, 7].map((j) => whole[i * 9 + j])),
        "strided selection across chunks",
      );
      await rejects(
        Promise.resolve().then(() => arr.chunkExtent([5, 0])),
        "SelectionError",
        [/outside the chunk grid/],
        "extent outside",
      );
    },
  },
  {
    name: "strict extensions: unknown grids, key encodings, transformers and fields are refused; must_understand false is ignored",
    async run(ctx) {
      const { open } = ctx.zarr;
      const bad = `${ctx.base}/bad.zarr`;
      for (const [path, pattern] of [
        ["unknown_grid", /chunk grid "hexagonal"/],
        ["unknown_key_encoding", /chunk key encoding "morton"/],
        ["storage_transformer", /storage transformers.*chunk-manifest-json/],
        ["unknown_field", /unknown metadata field "future_field"/],
      ]) {
        await rejects(
          open(bad, { path }),
          "UnsupportedError",
          [pattern, new RegExp(`${path}/zarr\\.json`)],
          path,
        );
      }
      const expected = await ctx.bytes("bad.expected.bin");
      for (const path of ["ignorable_codec", "ignorable_field"]) {
        const arr = await open(bad, { path });
        sameBytes(
          bytesOf((await arr.get()).data),
          expected,
          `${path} reads as if the extension were absent`,
        );
      }
      await rejects(
        open(bad, { path: "bad_fill" }),
        "MetadataError",
        [/out of range for uint16/, /bad_fill\/zarr\.json/],
        "bad fill",
      );
      await rejects(
        open(bad, { path: "nan_int_fill" }),
        "MetadataError",
        [/not an integer/],
        "NaN fill for an integer type",
      );
    },
  },
  {
    name: "a crc32c mismatch is a CodecError naming the chunk",
    async run(ctx) {
      const arr = await ctx.zarr.open(`${ctx.base}/bad.zarr`, { path: "crc32c_mismatch" });
      await rejects(
        arr.get(),
        "CodecError",
        [/codec crc32c/, /checksum mismatch/, /crc32c_mismatch\/c\/0\/0/],
        "crc32c",
      );
      equal((await arr.getChunk([1, 0])).data.length, 16, "the other chunks are intact");
    },
  },
);

/** The fixtures' manifests, below tests/fixtures/. */
export const MANIFESTS = ["v3.expected.json", "v2.expected.json", "v2_zarr3.expected.json"];

/** Every case, given the fixtures' manifests (MANIFESTS, parsed, in that order). */
/** The cases that decode: every fixture array read whole, and the v3 and v2 read cases. */
export function decodingCases(manifests) {
  return [...manifests.flatMap((m) => m.arrays).map(wholeArrayCase), ...cases, ...v2Cases];
}

export function readCases(manifests) {
  return [
    ...manifests.flatMap((m) => m.arrays).map(wholeArrayCase),
    ...cases,
    ...v2Cases,
    ...storeCases,
    ...apiCases,
    ...workerCases(manifests, MANIFESTS),
    ...vectorCases,
    ...safetyCases,
    ...stressCases,
  ];
}
