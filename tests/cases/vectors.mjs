// Zarr Vectors through the JS API (openVectors), in Node and headless Chromium, against the values
// zarr-vectors 0.9.2's own reader read from its fixtures (tests/fixtures/vectors/*.expected.json).
import { deepEqual, equal, ok, rejects } from "../support/check.mjs";

const json = async (ctx, rel) => JSON.parse(new TextDecoder().decode(await ctx.bytes(rel)));
const rowsOf = (flat, n) => Array.from({ length: flat.length / n }, (_, i) => Array.from(flat.subarray(i * n, i * n + n)));
const sorted = (rows) => rows.map((r) => r.map((v) => Math.fround(v)).join(",")).sort();

export const vectorCases = [
  {
    name: "vectors: a point cloud's metadata, chunks, box and objects read as zarr-vectors reads them",
    async run(ctx) {
      const want = await json(ctx, "vectors/points.expected.json");
      const zv = await ctx.zarr.openVectors(`${ctx.base}/vectors/points.zarr`);
      deepEqual([zv.version, zv.ndim, zv.levels, zv.geometryTypes], ["0.9.2", 3, ["0"], ["point_cloud"]], "metadata");
      deepEqual(zv.chunkShape, [25, 25, 25], "chunk shape");
      const level = await zv.level(0);
      equal(level.dtype, "float32", "vertex type");
      ok(level.chunks.some((c) => c[0] < 0), "chunks at negative coordinates");
      const all = [];
      const withAttributes = [];
      for (const chunk of level.chunks) {
        const part = await zv.readChunk(chunk, { attributes: ["intensity", "colour"] });
        const { intensity, colour } = part.attributes;
        ok(intensity.width === 1 && colour.width === 3 && colour.values instanceof Uint8Array, `chunk ${chunk}: attribute widths`);
        for (let r = 0; r < part.rows; r++) {
          withAttributes.push([...part.positions.subarray(3 * r, 3 * r + 3), intensity.values[r], ...colour.values.subarray(3 * r, 3 * r + 3)]);
        }
        ok(part.positions instanceof Float32Array && part.positions.length === part.rows * 3, `chunk ${chunk}: rows of 3`);
        const rows = part.fragments.flatMap((f) => (f.rows ? f.rows : Array.from({ length: f.count }, (_, i) => f.start + i)));
        ok(rows.length === part.rows && new Set(rows).size === part.rows && rows.every((r) => r >= 0 && r < part.rows), `chunk ${chunk}: its fragments tile its rows`);
        all.push(...rowsOf(part.positions, 3));
      }
      deepEqual(sorted(all), sorted(want.whole.positions), "every point");
      const theirs = want.whole.positions.map((p, i) => [...p, want.whole.attributes.intensity[i], ...want.whole.attributes.colour[i]]);
      deepEqual(sorted(withAttributes), sorted(theirs), "every point with its intensity and colour");
      await rejects(zv.readChunk(level.chunks[0], { attributes: ["no_such"] }), "NotFoundError", [/no_such/], "an attribute that is not there");
      const bbox = [[-40, 10, 30], [-20, 40, 60]];
      const { positions, chunks } = await zv.select({ bbox });
      ok(chunks.length < level.chunks.length, `only ${chunks.length} of ${level.chunks.length} chunks read`);
      const inside = want.whole.positions.filter((p) => p.every((v, d) => Math.fround(v) >= bbox[0][d] && Math.fround(v) <= bbox[1][d]));
      ok(inside.length > 0, "points in the box");
      deepEqual(sorted(rowsOf(positions, 3)), sorted(inside), "the points inside the box");
      for (const [id, object] of Object.entries(want.objects)) {
        const { positions: mine } = await zv.readObject(Number(id));
        deepEqual(sorted(rowsOf(mine, 3)), sorted(object.positions), `object ${id}`);
      }
      equal(await zv.readChunk([40, 40, 40]), null, "a chunk outside the grid");
      await rejects(zv.readObject(11), "SelectionError", [/11 objects/], "an object that is not there");
      await rejects(zv.level(3), "SelectionError", [/1 levels/], "a level that is not there");
      await rejects(zv.level(0.5), "SelectionError", [/non-negative integer/], "a level that is not an integer");
      await rejects(zv.select({ bbox: [[0, 0], [1, 1]] }), "SelectionError", [/3 values/], "a 2-D box in 3-D");
      await rejects(zv.readChunk([0, 0]), "SelectionError", [/must have 3 values/], "2 chunk coordinates in 3-D");
    },
  },
  {
    name: "vectors: polylines come back in order; stores of unknown versions and plain groups are refused",
    async run(ctx) {
      const want = await json(ctx, "vectors/polylines.expected.json");
      const zv = await ctx.zarr.openVectors(`${ctx.base}/vectors/polylines.zarr`);
      equal(zv.ndim, 2, "2-D");
      for (const [id, object] of Object.entries(want.objects)) {
        const { positions } = await zv.readObject(Number(id));
        deepEqual(rowsOf(positions, 2).map((r) => r.join(",")), object.positions.map((r) => r.map((v) => Math.fround(v)).join(",")), `polyline ${id}`);
      }
      const root = new TextDecoder().decode(await ctx.bytes("vectors/points.zarr/zarr.json"));
      // Hand-made: no writer produces a store of a version to come.
      const future = new ctx.zarr.MemoryStore([["zarr.json", new TextEncoder().encode(root.replace('"0.9.2"', '"2.0.0"'))]]);
      await rejects(ctx.zarr.openVectors(future), "UnsupportedError", [/version 2\.0\.0/], "an unknown version");
      await rejects(ctx.zarr.openVectors(`${ctx.base}/v3.zarr`), "MetadataError", [/not a Zarr Vectors store/, /v3\.zarr/], "a plain group");
    },
  },
];
