// Reads of the v3 fixtures: requests per read, selections, chunks, groups, consolidated metadata,
// rectilinear grids, and every error path. Each case is `{ name, run(ctx) }` (ctx from
// context.mjs), run by Node (tests/node) and headless Chromium (tests/browser); all.mjs lists them.
import { bytesOf, deepEqual, equal, ok, rejects, sameBytes } from "../support/check.mjs";
import { openArray, chunkRequests } from "./fixtures.mjs";

export const readCases = [
  {
    name: "narrow types: values widened exactly (Float32Array, Int8Array, Uint8Array); bits: true gives the stored patterns; the fill value as a value",
    async run(ctx) {
      const open = (path) => openArray(ctx, path, "ml_types.zarr");
      const e4m3 = await open("float8_e4m3fn");
      const values = (await e4m3.get([0, null])).data;
      ok(values instanceof Float32Array, "float8 values are a Float32Array");
      deepEqual(
        Array.from(values),
        [0, 0.001953125, 0.00390625, 0.005859375, 0.0078125, 0.009765625, 0.01171875, 0.013671875],
        "the first eight patterns' values",
      );
      const bits = (await e4m3.get([null, 0], { bits: true })).data;
      ok(bits instanceof Uint8Array, "float8 patterns are a Uint8Array");
      deepEqual(Array.from(bits.subarray(0, 4)), [0, 8, 16, 24], "patterns down the first column");
      equal(e4m3.fillValue, 1.5, "fillValue");
      const bf16 = await open("bfloat16");
      const bf16Bits = (await bf16.get([ctx.zarr.slice(0, 2), null], { bits: true })).data;
      ok(bf16Bits instanceof Uint16Array, "bfloat16 patterns are a Uint16Array");
      deepEqual(Array.from(bf16Bits), [...Array(16).keys()], "every pattern in order");
      const int4 = (await (await open("int4")).get()).data;
      ok(int4 instanceof Int8Array, "int4 values are an Int8Array");
      deepEqual(
        Array.from(int4.subarray(0, 16)),
        [0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1],
        "int4 values",
      );
      equal(int4[16], -3, "the fill value over the missing chunk");
      const complex = await open("complex_bfloat16");
      deepEqual(Array.from((await complex.get([0])).data), [0, -0], "complex pairs interleaved");
      deepEqual(complex.fillValue, [1.5, 1.5], "complex fillValue");
      await rejects(
        e4m3.get(null, { bits: 1 }),
        "TypeError",
        [/bits must be true or false/],
        "bits type",
      );
      await rejects(
        e4m3.get(null, { bits: true, out: new Uint8Array(264) }),
        "TypeError",
        [/bits and out cannot be combined/],
        "bits with out",
      );
      const out = new Float32Array(264);
      equal(
        (await e4m3.get(null, { out })).data,
        out,
        "out: the widened values written into a Float32Array",
      );
      equal(out[8], (await e4m3.get([1, 0])).data[0], "out holds the values");
    },
  },
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
];
