// Zarr v2 reads beyond whole arrays (those are read.mjs's manifest cases): how nodes are found and
// what that costs in requests, consolidated hierarchies, typed results, selections through
// F-order chunks, and every error path. Shared by Node and headless Chromium, like read.mjs.
import { deepEqual, equal, ok, rejects } from "../support/check.mjs";

const inStore = (log, store) =>
  log.map((r) => `${r.method} ${r.path.replace(`/tests/fixtures/${store}/`, "")}`);

export const v2Cases = [
  {
    name: "v1: an array's meta is looked for after the v2 documents (attrs once meta is there), only it with zarrFormat: 1; a missing node names meta; v1 has no consolidated metadata",
    async run(ctx) {
      const { open } = ctx.zarr;
      await ctx.clearLog();
      const arr = await open(`${ctx.base}/v1`, { path: "zlib_float64" });
      const log = inStore(await ctx.requests(), "v1");
      equal(log[0], "GET zlib_float64/zarr.json", "v3 first");
      deepEqual(log.slice(-2), ["GET zlib_float64/meta", "GET zlib_float64/attrs"], "v1 last");
      equal(log.length, 7, `then v2 (.zarray, .zattrs, .zgroup, .zmetadata): ${log}`);
      equal(arr.zarrFormat, 1, "zarrFormat");
      deepEqual(arr.attrs, { name: "zlib_float64", writer: "zarr-wasm's v1 fixture script" });
      ok(Number.isNaN(arr.fillValue), "a bare NaN fill value, as zarr 1.x wrote it");
      equal((await arr.get([0, 1])).data.length, 1, "reads");

      await ctx.clearLog();
      const only = await open(`${ctx.base}/v1`, { path: "bool_zlib", zarrFormat: 1 });
      deepEqual(
        inStore(await ctx.requests(), "v1"),
        ["GET bool_zlib/meta", "GET bool_zlib/attrs"],
        "zarrFormat: 1 looks for nothing else",
      );
      equal(only.dtype, "bool");
      await rejects(
        open(`${ctx.base}/v1`, { path: "no/such" }),
        "NotFoundError",
        [/no\/such\/zarr\.json \(nor \.zarray, \.zgroup or a Zarr v1 meta beside it\)/],
        "a missing node names every document looked for",
      );
      await rejects(
        open(`${ctx.base}/v1`, { path: "no/such", zarrFormat: 1 }),
        "NotFoundError",
        [/no\/such\/meta/],
        "zarrFormat: 1 names meta",
      );
      await rejects(
        open(`${ctx.base}/v1`, { path: "bool_zlib", zarrFormat: 1, consolidated: true }),
        "RangeError",
        [/Zarr v1 has no consolidated metadata/],
        "consolidated v1",
      );
      arr.free();
      only.free();
    },
  },
  {
    name: "v2: opening an array costs 3 requests (zarr.json, then .zarray and .zattrs together), 2 with zarrFormat: 2",
    async run(ctx) {
      const { open } = ctx.zarr;
      await ctx.clearLog();
      const arr = await open(`${ctx.base}/v2.zarr`, { path: "layouts/dimension_names" });
      const log = inStore(await ctx.requests(), "v2.zarr");
      equal(log.length, 3, `requests: ${log}`);
      equal(log[0], "GET layouts/dimension_names/zarr.json", "v3 first");
      deepEqual(
        log.slice(1).sort(),
        ["GET layouts/dimension_names/.zarray", "GET layouts/dimension_names/.zattrs"],
        "then both v2 documents",
      );
      equal(arr.zarrFormat, 2, "zarrFormat");
      deepEqual(arr.dimensionNames, ["y", "x"], "dimension names from _ARRAY_DIMENSIONS");
      deepEqual(
        arr.attrs,
        { _ARRAY_DIMENSIONS: ["y", "x"], scale: [0.5, 0.25], units: "counts" },
        "attributes from .zattrs, in its order",
      );

      await ctx.clearLog();
      await open(`${ctx.base}/v2.zarr`, { path: "dtypes/int32", zarrFormat: 2 });
      deepEqual(
        inStore(await ctx.requests(), "v2.zarr").sort(),
        ["GET dtypes/int32/.zarray", "GET dtypes/int32/.zattrs"],
        "no zarr.json with zarrFormat: 2",
      );
      await rejects(
        open(`${ctx.base}/v2.zarr`, { path: "dtypes/int32", zarrFormat: 3 }),
        "NotFoundError",
        [/dtypes\/int32\/zarr\.json/],
        "zarrFormat: 3 looks only for zarr.json",
      );
      await rejects(
        open(`${ctx.base}/v2.zarr`, { zarrFormat: 4 }),
        "RangeError",
        [/zarrFormat must be one of 1, 2, 3, not 4/],
        "a bad zarrFormat",
      );
      await rejects(
        open(`${ctx.base}/v2.zarr`, { path: "no/such", zarrFormat: 2 }),
        "NotFoundError",
        [/no\/such\/\.zarray/, /\.zgroup/],
        "missing v2 node",
      );
    },
  },
  {
    name: "v2: a consolidated hierarchy opens with one request (consolidated: true) and its nodes with none",
    async run(ctx) {
      const { open } = ctx.zarr;
      const base = `${ctx.base}/v2_consolidated.zarr`;
      await ctx.clearLog();
      const raw = await open(base, { path: "images/raw", consolidated: true });
      deepEqual(raw.shape, [16, 16], "an array from .zmetadata");
      const root = await open(base, { consolidated: true });
      deepEqual(
        root.children,
        [
          { name: "images", path: "images", kind: "group" },
          { name: "table", path: "table", kind: "array" },
        ],
        "children",
      );
      const images = await root.open("images");
      deepEqual(images.attrs, { kind: "images" }, "a child group's attributes");
      deepEqual(
        images.children.map((c) => c.name),
        ["labels", "more", "raw"],
        "grandchildren",
      );
      const labels = await images.open("labels");
      deepEqual(labels.dimensionNames, ["y", "x"], "an array's .zattrs from .zmetadata");
      equal((await images.open("more/deep")).kind, "group", "a deep group");
      await rejects(
        images.open("nope"),
        "NotFoundError",
        [/consolidated metadata/, /images\/nope/],
        "unlisted",
      );
      deepEqual(
        inStore(await ctx.requests(), "v2_consolidated.zarr"),
        ["GET .zmetadata", "GET .zmetadata"],
        "one request per open() call, none for children",
      );

      // Found without asking: the v2 root's .zmetadata comes with its .zgroup.
      await ctx.clearLog();
      const found = await open(base);
      equal(found.zarrFormat, 2, "a v2 group");
      deepEqual(found.attrs, { title: "consolidated v2 hierarchy" }, "root attributes");
      equal((await found.open("images/raw")).zarrFormat, 2, "a child");
      const log = inStore(await ctx.requests(), "v2_consolidated.zarr");
      ok(
        log.includes("GET .zmetadata") && log.every((r) => !r.includes("images")),
        `no request below the root: ${log}`,
      );

      const plain = await open(`${ctx.base}/v2.zarr`, { consolidated: false });
      equal(plain.children, null, "an unconsolidated group does not list its children");
      await ctx.clearLog();
      const leaf = await plain.open("nested/deeper/leaf");
      equal(leaf.path, "nested/deeper/leaf", "a child opened by path");
      ok(
        (await ctx.requests()).every((r) => !r.path.endsWith("zarr.json")),
        "children of a v2 group are looked for as v2",
      );
      await rejects(
        open(`${ctx.base}/v2.zarr`, { zarrFormat: 2, consolidated: true }),
        "NotFoundError",
        [/v2\.zarr\/\.zmetadata/],
        "no .zmetadata",
      );

      // zarr-python 3 writes the same .zmetadata for its v2 hierarchies.
      await ctx.clearLog();
      const z3 = await open(`${ctx.base}/zarr3_v2.zarr`, { consolidated: true });
      equal(z3.children.length, 15, "zarr-python 3's consolidated v2 hierarchy lists its nodes");
      const group = await z3.open("group");
      deepEqual(group.attrs, { kind: "a child group" }, "a child group's attributes");
      equal((await ctx.requests()).length, 1, "one request");
    },
  },
  {
    name: "v2: datetimes are BigInt64Arrays with their unit, NaT the smallest int64; fixed strings are strings",
    async run(ctx) {
      const { open, slice } = ctx.zarr;
      const ns = await open(`${ctx.base}/v2.zarr`, { path: "time/datetime_ns" });
      equal(ns.dtype, "datetime64[ns]", "dtype");
      equal(ns.timeUnit, "ns", "timeUnit");
      equal(ns.fillValue, -(2n ** 63n), "NaT fill");
      const { data } = await ns.get([0, slice(0, 2)]);
      ok(data instanceof BigInt64Array, "a BigInt64Array");
      equal(data[0], -(2n ** 63n), "NaT");
      const missing = await ns.getChunk([1, 0]);
      ok(
        missing.data.every((v) => v === -(2n ** 63n)),
        "a missing chunk is NaT",
      );
      const td = await open(`${ctx.base}/v2.zarr`, { path: "time/timedelta_10s_big" });
      deepEqual(
        [td.dtype, td.timeUnit, td.fillValue],
        ["timedelta64[10s]", "10s", 5n],
        "a big-endian timedelta with a multiple unit",
      );

      const u = await open(`${ctx.base}/v2.zarr`, { path: "strings/unicode_u4_big" });
      equal(u.fillValue, "∅", "a U fill value");
      const last = await u.get([6]);
      deepEqual(last.data, ["∅"], "a missing element is the fill value");
      deepEqual(
        (await u.get([slice(0, 4)])).data,
        ["", "é", "日本", "😀"],
        "big-endian UTF-32, trailing NULs dropped",
      );
      const s = await open(`${ctx.base}/v2.zarr`, { path: "strings/bytes_s6" });
      deepEqual(
        (await s.get([slice(0, 6), 0])).data,
        ["", "\ufffd\u0000q", "zarr", "", "\ufffd\u0000q", "zarr"],
        "byte strings (invalid UTF-8 replaced, inner NULs kept)",
      );
      const cat = await open(`${ctx.base}/v2.zarr`, { path: "strings/categorize_object" });
      deepEqual(
        (await cat.get()).data,
        ["red", "green", "red", "", "blue", "green", "red"],
        "categories",
      );
    },
  },
  {
    name: "v2: structured values are an object of per-field typed arrays, nested records included",
    async run(ctx) {
      const { open, slice } = ctx.zarr;
      const arr = await open(`${ctx.base}/v2.zarr`, { path: "structured/point" });
      equal(arr.dtype, "structured", "dtype");
      deepEqual(
        arr.fields.map((f) => [f.name, f.dtype, f.shape, f.offset]),
        [
          ["x", "float32", [], 0],
          ["y", "int16", [2, 3], 4],
          ["inner", "structured", [], 16],
          ["name", "S5", [], 33],
          ["label", "U3", [], 38],
          ["flag", "bool", [], 50],
        ],
        "fields",
      );
      const whole = await arr.get();
      const part = await arr.get([slice(1, 3), 2]);
      deepEqual(part.shape, [2], "selection shape");
      ok(
        part.data.x instanceof Float32Array && part.data.y instanceof Int16Array,
        "typed arrays per field",
      );
      equal(part.data.y.length, 2 * 6, "a subarray field has its items after the records");
      ok(
        part.data.inner.b instanceof Float32Array && part.data.inner.b.length === 4,
        "complex64 in a nested record, interleaved",
      );
      ok(part.data.inner.t instanceof BigInt64Array, "a datetime field");
      for (const [i, record] of [
        [0, 1 * 4 + 2],
        [1, 2 * 4 + 2],
      ]) {
        equal(part.data.x[i], whole.data.x[record], `x of record ${record}`);
        equal(part.data.name[i], whole.data.name[record], `name of record ${record}`);
        deepEqual(
          Array.from(part.data.y.slice(i * 6, i * 6 + 6)),
          Array.from(whole.data.y.slice(record * 6, record * 6 + 6)),
          `y of record ${record}`,
        );
      }
      // A missing chunk holds the fill record.
      equal(whole.data.x[4 * 4 + 0], -1.5, "fill x");
      equal(whole.data.name[4 * 4 + 0], "none", "fill name");
      equal(whole.data.label[4 * 4 + 0], "∅", "fill label");
      equal(whole.data.inner.a[4 * 4 + 0], 7, "fill inner.a");
      ok(
        arr.fillValue instanceof Uint8Array && arr.fillValue.length === 51,
        "the fill record's stored bytes",
      );
    },
  },
  {
    name: "v2: selections through F-order chunks match the whole read, and nested keys are asked for with /",
    async run(ctx) {
      const { open, slice } = ctx.zarr;
      const arr = await open(`${ctx.base}/v2.zarr`, { path: "order/f_3d_int32" }); // int32 [7, 6, 5] in [3, 4, 2]
      const whole = (await arr.get()).data;
      const at = (i, j, k) => whole[(i * 6 + j) * 5 + k];
      const part = await arr.get([slice(1, 7, 2), -2, slice(null, -1)]);
      deepEqual(
        Array.from(part.data),
        [1, 3, 5].flatMap((i) => [0, 1, 2, 3].map((k) => at(i, 4, k))),
        "strided selection",
      );
      const chunk = await arr.getChunk([1, 0, 2]);
      deepEqual(chunk.shape, [3, 4, 2], "a whole chunk");
      equal(chunk.data[(2 * 4 + 3) * 2 + 0], at(5, 3, 4), "a chunk's element in C order");
      const strings = await open(`${ctx.base}/v2.zarr`, { path: "order/f_vlen_utf8" });
      const c = await strings.get([slice(1, 3), slice(2, 5)]);
      const all = (await strings.get()).data;
      deepEqual(
        c.data,
        [all[7], all[8], all[9], all[12], all[13], all[14]],
        "F-order variable-length strings",
      );

      const nested = await open(`${ctx.base}/v2.zarr`, { path: "layouts/nested_keys" });
      await ctx.clearLog();
      await nested.get([5, 7, 3]);
      deepEqual(
        inStore(await ctx.requests(), "v2.zarr"),
        ["GET layouts/nested_keys/1/1/1"],
        "one chunk, by its nested key",
      );
      const dotted = await open(`${ctx.base}/v2.zarr`, { path: "layouts/many_chunks" });
      await ctx.clearLog();
      await dotted.get([5, 9]);
      deepEqual(
        inStore(await ctx.requests(), "v2.zarr"),
        ["GET layouts/many_chunks/1.2"],
        "dotted keys by default",
      );
    },
  },
  {
    name: "v2: null fill values read as zeros and show as null; paths are normalised and '..' refused",
    async run(ctx) {
      const { open } = ctx.zarr;
      const arr = await open(`${ctx.base}/v2.zarr`, { path: "layouts/null_fill" });
      equal(arr.fillValue, null, "fillValue");
      ok(
        (await arr.getChunk([1, 1])).data.every((v) => v === 0),
        "a missing chunk reads as zeros",
      );
      const viaBackslash = await open(`${ctx.base}/v2.zarr`, { path: "\\nested\\\\deeper//leaf/" });
      equal(viaBackslash.path, "nested/deeper/leaf", "backslashes and repeated slashes normalised");
      await rejects(
        open(`${ctx.base}/v2.zarr`, { path: "nested/../dtypes" }),
        "SelectionError",
        [/"\.\." segment/],
        "..",
      );
      await rejects(
        open(`${ctx.base}/v2.zarr`, { path: "./dtypes" }),
        "SelectionError",
        [/"\." segment/],
        ".",
      );
    },
  },
  {
    name: "v2: unsupported codecs and types, bad metadata and corrupt chunks reject with errors naming the URL",
    async run(ctx) {
      const { open } = ctx.zarr;
      const bad = `${ctx.base}/bad_v2.zarr`;
      for (const [path, name, pattern] of [
        ["pickle", "UnsupportedError", /objects encoded by "pickle"/],
        ["unknown_filter", "UnsupportedError", /codec "numcodecs\.frobnicate"/],
        ["unknown_dtype", "UnsupportedError", /<q8/],
        ["no_byte_order", "MetadataError", /"u2" does not start with a byte order/],
        ["no_object_codec", "MetadataError", /object codec/],
        ["format3", "UnsupportedError", /zarr_format 3/],
        ["bad_order", "MetadataError", /"order" must be "C" or "F"/],
        ["bad_fill", "MetadataError", /out of range for uint16/],
        ["bad_zattrs", "MetadataError", /not a JSON object/],
        ["not_json", "MetadataError", /not valid JSON/],
      ]) {
        await rejects(
          open(bad, { path }),
          name,
          [pattern, new RegExp(`bad_v2\\.zarr/${path}/\\.za(rray|ttrs)`)],
          path,
        );
      }
      for (const [path, codec, problem] of [
        ["truncated_zlib", "numcodecs.zlib", /truncated/],
        ["corrupt_blosc", "blosc", /stream/],
        ["wrong_size", "bytes", /35 bytes, expected 32/],
      ]) {
        const arr = await open(bad, { path });
        await rejects(
          arr.get(),
          "CodecError",
          [new RegExp(`codec ${codec}`), new RegExp(`bad_v2\\.zarr/${path}/0\\.0`), problem],
          path,
        );
        ok((await arr.getChunk([1, 1])).data.length > 0, `${path}: the other chunks read`);
      }
    },
  },
];
