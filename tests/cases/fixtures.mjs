// What the fixtures' writers recorded and how a read is compared with it: typed arrays per data
// type, NumPy records and strings, fill values, and the case that reads one fixture array whole.
// Shared by the case files.
import { bytesOf, deepEqual, equal, ok, sameBytes } from "../support/check.mjs";

// float16 is a Float16Array where the runtime has one (Chromium), else a Float32Array (Node 20).
export const TYPED = {
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
  int4: Int8Array,
  int2: Int8Array,
  uint4: Uint8Array,
  uint2: Uint8Array,
};

/** The narrow floats (bfloat16, float8/6/4 and their complex pairs): Float32Arrays of their values. */
export const isNarrowFloat = (dtype) => /^(complex_)?(bfloat16|float[864]_|float16$)/.test(dtype);
export const typedFor = (dtype) =>
  TYPED[dtype] ??
  (isNarrowFloat(dtype)
    ? Float32Array
    : /^r\d+$/.test(dtype)
      ? Uint8Array
      : /^(datetime|timedelta)64\[/.test(dtype)
        ? BigInt64Array
        : ["string", "variable_length_bytes", "object"].includes(dtype) || /^[SU]\d+$/.test(dtype)
          ? Array
          : dtype === "structured"
            ? Object
            : undefined);

/** Fixed-length strings as NumPy reads them: trailing NULs dropped; S as UTF-8, U as UTF-32LE. */
export function fixedStrings(bytes, dtype) {
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
export function readNumpy(view, at, numpy) {
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

export const NUMPY_SIZES = {
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
export function numpySize(numpy) {
  const code = numpy.slice(1);
  if (/^[Mm]8\[/.test(code)) return 8;
  if (/^[SUV]\d+$/.test(code)) return Number(code.slice(1)) * (code[0] === "U" ? 4 : 1);
  return NUMPY_SIZES[code];
}

export function recordSize(fields) {
  return Math.max(
    ...fields.map((f) => f.offset + fieldItemSize(f) * f.shape.reduce((a, b) => a * b, 1)),
  );
}
export const fieldItemSize = (f) => (f.fields ? recordSize(f.fields) : numpySize(f.numpy));

/** Compares a structured result's fields with stored records, read here field by field with DataView. */
export function sameRecords(data, records, starts, fields, what) {
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
export function vlenItems(bytes, asStrings) {
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
export function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** Compares values with the expected little-endian bytes; float16 read as Float32Array compares values. */
export function sameValues(data, expected, dtype, what, entry) {
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
  if (dtype === "object") {
    // Recorded as each element's JSON text.
    deepEqual(
      data,
      vlenItems(expected, true).map((t) => JSON.parse(t)),
      what,
    );
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
  if (isNarrowFloat(dtype) && !TYPED[dtype]) {
    // Recorded as float32 (ml_dtypes' conversion); NaNs compare by being NaN (their sign varies).
    const want = new Float32Array(expected.buffer, expected.byteOffset, expected.byteLength / 4);
    equal(data.length, want.length, `${what}: length`);
    want.forEach((w, i) =>
      ok(
        Object.is(data[i], w) || (Number.isNaN(data[i]) && Number.isNaN(w)),
        `${what}: element ${i} is ${data[i]}, expected ${w}`,
      ),
    );
    return;
  }
  sameBytes(bytesOf(data), expected, what);
}

export function cStrides(shape) {
  const s = shape.map(() => 1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

export async function openArray(ctx, path, store = "v3.zarr") {
  const node = await ctx.zarr.open(`${ctx.base}/${store}`, { path });
  equal(node.kind, "array", `${path} kind`);
  return node;
}

export function expectedFill(entry) {
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
export const withoutNumpy = (fields) =>
  fields.map(({ numpy, ...f }) => ({
    ...f,
    ...(f.fields ? { fields: withoutNumpy(f.fields) } : {}),
  }));

export function sameFill(actual, expected, what) {
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

export function wholeArrayCase(entry) {
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

export const chunkRequests = (log) =>
  log.filter((r) => /\/c[/.]/.test(r.path) || /\/\d+[./]\d+$/.test(r.path));
