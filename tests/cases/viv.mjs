// zarr-wasm as Viv's loader (`zarr-wasm/viv`), shared by Node and headless Chromium: the committed
// sample (www/data/sample.ome.zarr, whose pixels tests/support/sample.mjs computes) and fixture
// arrays as Viv's PixelSources, read over the test server. `ctx.viv` is zarr-wasm/viv. Viv's own
// layers drawing through it are tests/browser/viv.test.mjs.
import { deepEqual, equal, ok, rejects } from "../support/check.mjs";
import { levelValue } from "../support/sample.mjs";

const SIDE = 1024; // the sample's level 0 is SIDE x SIDE, in levels of 1024, 512 and 256
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
const sampleUrl = (ctx) => `${ctx.origin}/www/data/sample.ome.zarr`;

/** Checks a tile or plane against the sample's formula: level, channel c, plane z, from (x0, y0). */
function checkPixels(tile, { level, c, z, x0, y0, width, height }, what) {
  equal(tile.width, width, `${what}: width`);
  equal(tile.height, height, `${what}: height`);
  ok(tile.data instanceof Uint16Array, `${what}: a Uint16Array`);
  equal(tile.data.length, width * height, `${what}: its length`);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const want = levelValue(level, c, z, y0 + y, x0 + x, SIDE);
      const got = tile.data[y * width + x];
      if (got !== want)
        throw new Error(
          `${what}: pixel (x ${x0 + x}, y ${y0 + y}) is ${got}, the sample's ${want}`,
        );
    }
}

/** A fixture's values as written, in a typed array of `Type`. */
async function written(ctx, file, Type) {
  const bytes = await ctx.bytes(file);
  return new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** Runs `body` with console.error recorded instead of printed; resolves to what was logged. */
async function consoleErrors(body) {
  const logged = [];
  const original = console.error;
  console.error = (...args) => logged.push(args);
  try {
    await body();
  } finally {
    console.error = original;
  }
  return logged;
}

/**
 * The sample with its root group's attributes replaced: a store object that answers zarr.json
 * itself and fetches every other key (ranges too) from the test server. For OME-Zarr layouts the
 * committed sample does not have.
 */
function sampleWithAttributes(ctx, attributes) {
  const root = JSON.stringify({ zarr_format: 3, node_type: "group", attributes });
  const fetchKey = async (key, headers, signal) => {
    const response = await fetch(`${sampleUrl(ctx)}/${key}`, { headers, signal });
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`${key}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  };
  return {
    url: "a rewritten sample",
    get: (key, options) =>
      key === "zarr.json" ? new TextEncoder().encode(root) : fetchKey(key, {}, options?.signal),
    getRange: (key, range, options) => {
      const bytes =
        "suffixLength" in range
          ? `bytes=-${range.suffixLength}`
          : `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`;
      return fetchKey(key, { Range: bytes }, options?.signal);
    },
  };
}

/** The sample's own multiscales (NGFF 0.5's, under "ome"), fetched. */
async function sampleOme(ctx) {
  return (await (await fetch(`${sampleUrl(ctx)}/zarr.json`)).json()).attributes.ome;
}

export const vivCases = [
  {
    name: "zarr-wasm/viv: openPixelSources on the OME-Zarr 0.5 sample gives its three levels (shapes, Uint16, labels c z y x from its axes, tiles of 128 from its inner chunks, pixel sizes in µm from its scales) and its ome attributes as metadata; from a URL, a Group or a ZarrArray",
    async run(ctx) {
      const { openPixelSources, PixelSource, SIGNAL_ABORTED } = ctx.viv;
      equal(SIGNAL_ABORTED, "__vivSignalAborted", "Viv's string for an aborted tile");
      const { data, metadata } = await openPixelSources(sampleUrl(ctx));
      equal(data.length, 3, "levels");
      data.forEach((source, k) => {
        const side = SIDE / 2 ** k;
        ok(source instanceof PixelSource, `level ${k} is a PixelSource`);
        deepEqual(source.shape, [2, 2, side, side], `level ${k}: shape`);
        equal(source.dtype, "Uint16", `level ${k}: dtype`);
        deepEqual(source.labels, ["c", "z", "y", "x"], `level ${k}: labels`);
        equal(source.tileSize, 128, `level ${k}: tile size`);
        equal(source.array.path, String(k), `level ${k}: its array`);
        deepEqual(
          source.meta,
          {
            physicalSizes: {
              z: { size: 1, unit: "µm" },
              y: { size: 2 ** k, unit: "µm" },
              x: { size: 2 ** k, unit: "µm" },
            },
          },
          `level ${k}: meta`,
        );
        equal(typeof source.onTileError, "function", `level ${k}: onTileError`);
      });
      equal(metadata.version, "0.5", "metadata: the ome object");
      equal(metadata.multiscales[0].datasets.length, 3, "metadata: its multiscales");
      equal(metadata.omero.channels[1].label, "cells", "metadata: its omero channels");

      const group = await ctx.zarr.open(sampleUrl(ctx));
      const fromGroup = await openPixelSources(group);
      deepEqual(
        fromGroup.data.map((s) => s.shape),
        data.map((s) => s.shape),
        "from the opened group",
      );
      const level1 = await ctx.zarr.open(sampleUrl(ctx), { path: "1" });
      const fromArray = await openPixelSources(level1);
      equal(fromArray.data.length, 1, "an array is one level");
      deepEqual(fromArray.data[0].labels, ["c", "z", "y", "x"], "labels from dimension_names");
      deepEqual(fromArray.data[0].meta, {}, "no pixel sizes without OME-Zarr metadata");
      deepEqual(fromArray.metadata, {}, "metadata: the array's attributes");
    },
  },
  {
    name: "zarr-wasm/viv: getTile and getRaster equal the sample's formula at every level, by label (a label left out is 0): interior tiles, and edge tiles clipped to the level with tiles of 384",
    async run(ctx) {
      const { openPixelSources } = ctx.viv;
      const { data } = await openPixelSources(sampleUrl(ctx));
      const tile = (k, x, y, selection) => data[k].getTile({ x, y, selection });
      checkPixels(
        await tile(0, 3, 5, { c: 1, z: 1 }),
        { level: 0, c: 1, z: 1, x0: 384, y0: 640, width: 128, height: 128 },
        "level 0 tile (3, 5), c 1, z 1",
      );
      checkPixels(
        await tile(1, 2, 1, { z: 1, c: 0 }),
        { level: 1, c: 0, z: 1, x0: 256, y0: 128, width: 128, height: 128 },
        "level 1 tile (2, 1), c 0, z 1",
      );
      checkPixels(
        await tile(2, 1, 1, { c: 1 }),
        { level: 2, c: 1, z: 0, x0: 128, y0: 128, width: 128, height: 128 },
        "level 2 tile (1, 1), c 1, z left out",
      );
      checkPixels(
        await tile(0, 7, 0, {}),
        { level: 0, c: 0, z: 0, x0: 896, y0: 0, width: 128, height: 128 },
        "level 0 tile (7, 0), an empty selection",
      );
      checkPixels(
        await data[2].getRaster({ selection: { c: 1, z: 1 } }),
        { level: 2, c: 1, z: 1, x0: 0, y0: 0, width: 256, height: 256 },
        "level 2's raster, c 1, z 1",
      );

      // Tiles of 384: 1024 = 2 x 384 + 256, 512 = 384 + 128, 256 < 384.
      const wide = (await openPixelSources(sampleUrl(ctx), { tileSize: 384 })).data;
      deepEqual(
        wide.map((s) => s.tileSize),
        [384, 384, 384],
        "one tile size for every level",
      );
      const edges = [
        [0, 2, 2, 768, 768, 256, 256],
        [0, 2, 0, 768, 0, 256, 384],
        [0, 1, 2, 384, 768, 384, 256],
        [1, 1, 1, 384, 384, 128, 128],
        [1, 0, 1, 0, 384, 384, 128],
        [2, 0, 0, 0, 0, 256, 256],
      ];
      for (const [level, x, y, x0, y0, width, height] of edges)
        checkPixels(
          await wide[level].getTile({ x, y, selection: { c: 1, z: 1 } }),
          { level, c: 1, z: 1, x0, y0, width, height },
          `level ${level} edge tile (${x}, ${y}) of 384`,
        );
    },
  },
  {
    name: "zarr-wasm/viv: a read whose signal aborts rejects with SIGNAL_ABORTED and its requests end at the server, while reads beside it (one sharing its shard index) are exact; an aborted signal rejects before anything is fetched",
    async run(ctx) {
      const { openPixelSources, SIGNAL_ABORTED } = ctx.viv;
      // Every answer 400 ms late: the abort comes while the shard indexes are on their way.
      const { data } = await openPixelSources(`${ctx.origin}/__slow/400/www/data/sample.ome.zarr`);
      const [level] = data;
      const selection = { c: 0, z: 1 };
      await ctx.clearLog();
      const controller = new AbortController();
      const { signal } = controller;
      const settle = (p) =>
        p.then(
          (value) => ({ value }),
          (error) => ({ error }),
        );
      // Tiles (0, 0) and (4, 4) abort: shards (0, 0) and (1, 1). (1, 0) shares shard (0, 0) and
      // its index request; (0, 4) is in shard (1, 0).
      const aborted = [
        settle(level.getTile({ x: 0, y: 0, selection, signal })),
        settle(level.getTile({ x: 4, y: 4, selection, signal })),
      ];
      const kept = [
        settle(level.getTile({ x: 1, y: 0, selection })),
        settle(level.getTile({ x: 0, y: 4, selection })),
      ];
      // Abort once the server has the three shard indexes' requests (it answers 400 ms later).
      for (let i = 0; i < 100 && (await ctx.requests()).length < 3; i++) await wait(5);
      controller.abort();
      for (const [i, result] of (await Promise.all(aborted)).entries())
        equal(result.error, SIGNAL_ABORTED, `aborted read ${i} rejects with SIGNAL_ABORTED`);
      const [beside, other] = await Promise.all(kept);
      ok(!beside.error, `the tile sharing the aborted one's shard: ${beside.error}`);
      checkPixels(
        beside.value,
        { level: 0, c: 0, z: 1, x0: 128, y0: 0, width: 128, height: 128 },
        "tile (1, 0) beside the aborted (0, 0)",
      );
      ok(!other.error, `the tile of another shard: ${other.error}`);
      checkPixels(
        other.value,
        { level: 0, c: 0, z: 1, x0: 0, y0: 512, width: 128, height: 128 },
        "tile (0, 4)",
      );
      for (let i = 0; i < 100 && (await ctx.active()) > 0; i++) await wait(20);
      equal(await ctx.active(), 0, "no request left open at the server");
      // Shard keys are 0/c/<c>/<z>/<row>/<column>. The aborted tiles started the index requests
      // of shards (0, 0) and (1, 1), which end with them; shard (0, 0)'s is sent again for tile
      // (1, 0), which waits for it too. Shard (1, 0)'s is no aborted read's.
      const log = (await ctx.requests()).map((r) => ({ ...r, shard: r.path.split("/c/0/1/")[1] }));
      const closed = log.filter((r) => r.aborted).map((r) => r.shard);
      deepEqual(closed.sort(), ["0/0", "1/1"], "the requests the server saw closed, by shard");
      ok(
        log.some((r) => r.shard === "0/0" && r.range === "bytes=-260" && !r.aborted),
        "shard (0, 0)'s index, asked again for the tile still waiting",
      );

      // A whole plane aborted on its way.
      const planeController = new AbortController();
      const plane = settle(level.getRaster({ selection, signal: planeController.signal }));
      await wait(60);
      planeController.abort();
      equal((await plane).error, SIGNAL_ABORTED, "an aborted getRaster");
      for (let i = 0; i < 100 && (await ctx.active()) > 0; i++) await wait(20);

      // A signal aborted before the read: nothing is asked of the server.
      await ctx.clearLog();
      const already = AbortSignal.abort();
      const before = await settle(level.getTile({ x: 2, y: 2, selection, signal: already }));
      equal(before.error, SIGNAL_ABORTED, "an already aborted signal");
      deepEqual(await ctx.requests(), [], "no request for it");
      const logged = await consoleErrors(() => level.onTileError(SIGNAL_ABORTED));
      deepEqual(logged, [], "onTileError takes an abort silently");
    },
  },
  {
    name: "zarr-wasm/viv: clear errors for data types Viv does not draw, one-dimensional arrays, images Viv would take for RGB, bad labels and tile sizes, unknown labels, indexes and tiles outside the array, and a group that is no image; onTileError ignores the tile's own abort and tiles outside the level and logs the rest",
    async run(ctx) {
      const { openPixelSources, PixelSource } = ctx.viv;
      const { open } = ctx.zarr;
      const fixture = (path) => open(`${ctx.base}/v3.zarr`, { path });
      const construct = (array, options) => (async () => new PixelSource(array, options))();
      for (const dtype of ["int64", "uint64", "bool", "float16", "complex64"])
        await rejects(
          construct(await fixture(`dtypes/${dtype}`)),
          "UnsupportedError",
          [new RegExp(`"dtypes/${dtype}"`), new RegExp(`data type is ${dtype}`), /uint16/],
          `a ${dtype} array`,
        );
      await rejects(
        openPixelSources(`${ctx.base}/v3.zarr`, { path: "dtypes/int64" }),
        "UnsupportedError",
        [/int64/],
        "openPixelSources of an int64 array",
      );
      await rejects(
        construct(await fixture("layouts/d1")),
        "UnsupportedError",
        [/two or more dimensions/, /"layouts\/d1"/, /\[100\]/],
        "a 1-D array",
      );
      await rejects(
        openPixelSources(`${ctx.base}/v2.zarr`, { path: "layouts/nested_keys" }),
        "UnsupportedError",
        [/4 pixels wide/, /\[10,9,4\]/, /interleaved RGB\(A\)/],
        "an image 4 pixels wide, which Viv would take for RGBA",
      );
      const uint16 = await fixture("dtypes/uint16");
      for (const labels of [["a", "b"], ["y"], ["x", "y"], ["y", "y"], "yx"])
        await rejects(
          construct(uint16, { labels }),
          "TypeError",
          [/labels must be 2 different names, the last two "y" and "x"/],
          `labels ${JSON.stringify(labels)}`,
        );
      for (const tileSize of [0, -4, 1.5, "64"])
        await rejects(
          construct(uint16, { tileSize }),
          "TypeError",
          [/tileSize must be a positive integer/],
          `tileSize ${JSON.stringify(tileSize)}`,
        );
      await rejects(construct({ kind: "group" }), "TypeError", [/zarr-wasm array/], "not an array");

      const { data } = await openPixelSources(sampleUrl(ctx));
      const [level] = data;
      const tile = (x, y, selection) => level.getTile({ x, y, selection });
      await rejects(
        tile(0, 0, { t: 0 }),
        "SelectionError",
        [/no axis "t"/, /c, z, y, x/],
        "an unknown label",
      );
      await rejects(tile(0, 0, { y: 3 }), "SelectionError", [/no axis "y"/], "y in a selection");
      await rejects(
        tile(0, 0, { z: 2 }),
        "SelectionError",
        [/z = 2 for the array at "0"/, /an integer from 0 to 1/],
        "an index past the axis",
      );
      for (const index of [-1, 0.5, "1", null])
        await rejects(
          tile(0, 0, { c: index }),
          "SelectionError",
          [/c = .* for the array/, /an integer from 0 to 1/],
          `index ${JSON.stringify(index)}`,
        );
      // vizarr's form, an index per axis (y and x not read), reads as the same by labels.
      deepEqual(
        Array.from((await tile(1, 2, [1, 1, 0, 0])).data),
        Array.from((await tile(1, 2, { c: 1, z: 1 })).data),
        "an index per axis",
      );
      await rejects(tile(0, 0, [0, 2, 0, 0]), "SelectionError", [/z = 2/], "per axis, past z");
      await rejects(tile(0, 0, [0, 0]), "TypeError", [/an index per axis \(4\)/], "too few");
      const outside = [];
      for (const [x, y] of [
        [8, 0],
        [0, 8],
        [-1, 0],
        [0.5, 0],
      ])
        outside.push(
          await rejects(
            tile(x, y, {}),
            "SelectionError",
            [/outside the array at "0"/, /8 x 8 tiles of 128/],
            `tile (${x}, ${y})`,
          ),
        );
      await rejects(
        data[2].getTile({ x: 2, y: 0, selection: {} }),
        "SelectionError",
        [/its 256 x 256 pixels make 2 x 2 tiles/],
        "a tile past level 2",
      );

      const unknown = await tile(0, 0, { t: 0 }).catch((e) => e);
      const storeError = new ctx.zarr.StoreError("HTTP 500 for a chunk");
      const logged = await consoleErrors(() => {
        for (const error of outside) level.onTileError(error);
        // Another read's abort reaching this tile is no abort of its own: logged.
        level.onTileError(new ctx.zarr.AbortError("aborted"));
        const { onTileError } = level; // Viv calls it unbound
        onTileError(unknown);
        onTileError(storeError);
      });
      deepEqual(
        logged.map(([e]) => e.name),
        ["AbortError", "SelectionError", "StoreError"],
        "onTileError logged the other read's abort, the unknown label and the store error, nothing else",
      );
      equal(logged[1][0], unknown, "the error itself");

      await rejects(
        openPixelSources(`${ctx.base}/v3.zarr`),
        "MetadataError",
        [/the group at the root is no OME-Zarr image/, /multiscales/],
        "a group without multiscales",
      );
      await rejects(
        openPixelSources(sampleUrl(ctx), { labels: ["y", "x"] }),
        "TypeError",
        [/labels must be 4 different names/],
        "labels of the wrong length for the image",
      );
    },
  },
  {
    name: "zarr-wasm/viv: a plain 2-D array (v3.zarr dtypes/uint16, 13 x 11 in chunks of 5 x 4) is one level of labels y, x and tiles of 4 whose every tile, edges clipped, and raster are what zarr-python wrote; each data type Viv draws has its Viv name; a 3-D array gets labels z, y, x",
    async run(ctx) {
      const { openPixelSources, PixelSource } = ctx.viv;
      const { open } = ctx.zarr;
      const { data, metadata } = await openPixelSources(`${ctx.base}/v3.zarr`, {
        path: "dtypes/uint16",
      });
      equal(data.length, 1, "one level");
      const [source] = data;
      deepEqual(source.shape, [13, 11], "shape");
      deepEqual(source.labels, ["y", "x"], "labels");
      equal(source.tileSize, 4, "the largest power of two within a 5 x 4 chunk");
      deepEqual(metadata, {}, "metadata: the array's attributes");
      const values = await written(ctx, "v3.expected/v3__dtypes__uint16.bin", Uint16Array);
      const [height, width] = source.shape;
      let tiles = 0;
      for (let ty = 0; ty * 4 < height; ty++)
        for (let tx = 0; tx * 4 < width; tx++) {
          const got = await source.getTile({ x: tx, y: ty, selection: {} });
          const [w, h] = [Math.min(4, width - tx * 4), Math.min(4, height - ty * 4)];
          equal(got.width, w, `tile (${tx}, ${ty}): width`);
          equal(got.height, h, `tile (${tx}, ${ty}): height`);
          const want = [];
          for (let y = 0; y < h; y++)
            for (let x = 0; x < w; x++) want.push(values[(ty * 4 + y) * width + tx * 4 + x]);
          deepEqual(Array.from(got.data), want, `tile (${tx}, ${ty})`);
          tiles++;
        }
      equal(tiles, 4 * 3, "4 rows of 3 tiles, the last row 1 pixel high and column 3 wide");
      const raster = await source.getRaster({ selection: {} });
      deepEqual([raster.width, raster.height], [11, 13], "the raster's size");
      deepEqual(Array.from(raster.data), Array.from(values), "the raster");

      const TYPES = {
        uint8: ["Uint8", Uint8Array],
        uint16: ["Uint16", Uint16Array],
        uint32: ["Uint32", Uint32Array],
        int8: ["Int8", Int8Array],
        int16: ["Int16", Int16Array],
        int32: ["Int32", Int32Array],
        float32: ["Float32", Float32Array],
        float64: ["Float64", Float64Array],
      };
      for (const [dtype, [name, Type]] of Object.entries(TYPES)) {
        const typed = new PixelSource(
          await open(`${ctx.base}/v3.zarr`, { path: `dtypes/${dtype}` }),
        );
        equal(typed.dtype, name, `${dtype}: Viv's name`);
        const { data: got } = await typed.getRaster({ selection: {} });
        ok(got instanceof Type, `${dtype}: a ${Type.name}`);
        const want = await written(ctx, `v3.expected/v3__dtypes__${dtype}.bin`, Type);
        deepEqual(Array.from(got), Array.from(want), `${dtype}: its values`);
      }

      const cube = new PixelSource(await open(`${ctx.base}/v3.zarr`, { path: "layouts/d3" }));
      deepEqual(cube.labels, ["z", "y", "x"], "a 3-D array's default labels");
      equal(cube.tileSize, 2, "chunks of 3 x 4 x 2: tiles of 2");
      const d3 = await written(ctx, "v3.expected/v3__layouts__d3.bin", Int32Array);
      const got = await cube.getTile({ x: 2, y: 1, selection: { z: 3 } });
      deepEqual([got.width, got.height], [1, 2], "the 7 x 6 x 5 cube's last column: 1 wide");
      deepEqual(
        Array.from(got.data),
        [d3[3 * 30 + 2 * 5 + 4], d3[3 * 30 + 3 * 5 + 4]],
        "tile (2, 1) of plane 3",
      );
      const named = new PixelSource(cube.array, { labels: ["plane", "y", "x"], tileSize: 8 });
      const whole = await named.getTile({ x: 0, y: 0, selection: { plane: 6 } });
      deepEqual(
        Array.from(whole.data),
        Array.from(d3.subarray(6 * 30, 7 * 30)),
        "labels and tile size given: plane 6 in one tile",
      );
    },
  },
  {
    name: "zarr-wasm/viv: OME-Zarr as other writers lay it out, through a store that rewrites the sample's root metadata: NGFF 0.4 (multiscales in the attributes), 0.3 (axes as names), none (dimension_names), labels given, a multiscale-wide scale and other units; levels that do not halve are refused",
    async run(ctx) {
      const { openPixelSources } = ctx.viv;
      const ome = await sampleOme(ctx);
      const [multiscale] = ome.multiscales;
      const opened = (attributes, options) =>
        openPixelSources(sampleWithAttributes(ctx, attributes), options);

      // NGFF 0.4: the same multiscales, in the attributes themselves.
      const v04 = { multiscales: [{ ...multiscale, version: "0.4" }], omero: ome.omero };
      const a = await opened(v04);
      deepEqual(
        a.data.map((s) => s.shape[3]),
        [1024, 512, 256],
        "0.4: the levels",
      );
      deepEqual(a.data[1].labels, ["c", "z", "y", "x"], "0.4: labels from the axes");
      deepEqual(a.data[1].meta.physicalSizes.x, { size: 2, unit: "µm" }, "0.4: pixel sizes");
      equal(a.metadata.omero.channels.length, 2, "0.4: metadata is the attributes");
      checkPixels(
        await a.data[1].getTile({ x: 3, y: 2, selection: { c: 1, z: 1 } }),
        { level: 1, c: 1, z: 1, x0: 384, y0: 256, width: 128, height: 128 },
        "0.4: level 1 tile (3, 2)",
      );

      // NGFF 0.3: axes as names, no coordinate transformations; names other than y and x last.
      const v03 = {
        multiscales: [
          {
            version: "0.3",
            axes: ["ch", "plane", "row", "col"],
            datasets: multiscale.datasets.map(({ path }) => ({ path })),
          },
        ],
      };
      const b = await opened(v03);
      deepEqual(b.data[0].labels, ["ch", "plane", "y", "x"], "0.3: the axes' names, y and x last");
      deepEqual(b.data[0].meta, {}, "0.3: no pixel sizes");
      checkPixels(
        await b.data[2].getTile({ x: 1, y: 0, selection: { ch: 1, plane: 1 } }),
        { level: 2, c: 1, z: 1, x0: 128, y0: 0, width: 128, height: 128 },
        "0.3: level 2 tile (1, 0) by its own labels",
      );

      // No axes at all: the arrays' dimension_names; labels given override.
      const bare = {
        multiscales: [{ datasets: multiscale.datasets.map(({ path }) => ({ path })) }],
      };
      deepEqual((await opened(bare)).data[0].labels, ["c", "z", "y", "x"], "dimension_names");
      const given = await opened(bare, { labels: ["channel", "depth", "y", "x"], tileSize: 256 });
      deepEqual(given.data[2].labels, ["channel", "depth", "y", "x"], "labels given");
      checkPixels(
        await given.data[2].getTile({ x: 0, y: 0, selection: { channel: 1, depth: 0 } }),
        { level: 2, c: 1, z: 0, x0: 0, y0: 0, width: 256, height: 256 },
        "labels and tile size given: level 2 in one tile",
      );

      // A scale for the whole multiscale, and other units.
      const units = {
        multiscales: [
          {
            ...multiscale,
            axes: [
              { name: "c", type: "channel" },
              { name: "z", type: "space", unit: "angstrom" },
              { name: "y", type: "space", unit: "nanometer" },
              { name: "x", type: "space" },
            ],
            coordinateTransformations: [{ type: "scale", scale: [1, 20, 0.5, 0.5] }],
          },
        ],
      };
      deepEqual(
        (await opened(units)).data[2].meta,
        {
          physicalSizes: {
            z: { size: 2, unit: "nm" },
            y: { size: 2, unit: "nm" },
          },
        },
        "level 2's pixel sizes: its scale times the multiscale's, in Viv's units; none for x, which has no unit",
      );
      units.multiscales[0].axes[3] = { name: "x", type: "space", unit: "inch" };
      deepEqual(
        (await opened(units)).data[0].meta.physicalSizes.x,
        { size: 0.5 * 0.0254, unit: "m" },
        "inches in metres",
      );

      // Levels Viv cannot draw together.
      const withDatasets = (paths) => ({
        multiscales: [
          {
            ...multiscale,
            datasets: paths.map((path) => ({ path, coordinateTransformations: [] })),
          },
        ],
      });
      deepEqual(
        (await opened(withDatasets(["0", "1"]))).data.map((s) => s.shape[2]),
        [1024, 512],
        "two of the levels",
      );
      await rejects(
        opened(withDatasets(["0", "2"])),
        "UnsupportedError",
        [/level 1 \("2", shape \[2,2,256,256\]\)/, /divided by 2\^k/],
        "a level a quarter of the one above",
      );
      await rejects(
        opened(withDatasets(["2", "1", "0"])),
        "UnsupportedError",
        [/level 1 \("1"/],
        "levels coarsest first",
      );
      await rejects(
        opened({ multiscales: [{ datasets: [] }] }),
        "MetadataError",
        [/no multiscales with datasets/],
        "a multiscale without datasets",
      );
      await rejects(
        opened({ multiscales: [{ datasets: [{ path: "0" }, {}] }] }),
        "MetadataError",
        [/dataset 1 has no path/],
        "a dataset without a path",
      );
    },
  },
  {
    name: "zarr-wasm/viv: a pyramid whose coarser levels are 3 or 4 pixels wide (Viv would draw them as RGB) ends above them",
    async run(ctx) {
      const { openPixelSources } = ctx.viv;
      // Group and arrays as objects of the shape openPixelSources reads (only their metadata is).
      const array = (side) => ({
        kind: "array",
        path: `level of ${side}`,
        shape: [2, side, side],
        dtype: "uint16",
        chunks: [1, 8, 8],
        get: async () => {
          throw new Error("not read");
        },
      });
      const sides = { 0: 16, 1: 8, 2: 4, 3: 2 };
      const group = {
        kind: "group",
        path: "image",
        attrs: { multiscales: [{ datasets: Object.keys(sides).map((path) => ({ path })) }] },
        open: async (path) => array(sides[path]),
      };
      const { data } = await openPixelSources(group);
      deepEqual(
        data.map((s) => s.shape[2]),
        [16, 8],
        "the levels above the first one 4 pixels wide",
      );
    },
  },
];
