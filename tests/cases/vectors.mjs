// Zarr Vectors through the JS API (openVectors), in Node and headless Chromium, against the values
// zarr-vectors 0.9.2's own reader read from its fixtures (tests/fixtures/vectors/*.expected.json).
import { deepEqual, equal, ok, rejects } from "../support/check.mjs";

const json = async (ctx, rel) => JSON.parse(new TextDecoder().decode(await ctx.bytes(rel)));
const rowsOf = (flat, n) =>
  Array.from({ length: flat.length / n }, (_, i) => Array.from(flat.subarray(i * n, i * n + n)));
const sorted = (rows) => rows.map((r) => r.map((v) => Math.fround(v)).join(",")).sort();
const point = (p) => Array.from(p, (v) => Math.fround(v)).join(",");
/** Our links as their endpoints' positions, in the order written (numbering may differ from theirs). */
const linksAsPoints = (g, n) => {
  const { width, indices } = g.links;
  const out = [];
  for (let i = 0; i < indices.length; i += width) {
    out.push(
      Array.from(indices.subarray(i, i + width), (v) =>
        point(g.positions.subarray(v * n, v * n + n)),
      ).join(" | "),
    );
  }
  return out.sort();
};
/** zarr-vectors' links (indices into its positions) the same way. */
const theirLinks = (read, field) =>
  read[field].map((l) => l.map((v) => point(read.positions[v])).join(" | ")).sort();

/** The link arrays a canonical family of triangles among `chunks` could have, by name. */
function canonicalFaceArrays(chunks) {
  const name = (o) => o.map((c) => (c > 0 ? `+${c}` : `${c}`)).join(".");
  const compare = (a, b) => {
    const i = a.findIndex((v, k) => v !== b[k]);
    return i < 0 ? 0 : Math.sign(a[i] - b[i]);
  };
  const zero = chunks[0].map(() => 0);
  const names = new Set();
  for (const a of chunks)
    for (const b of chunks)
      for (const c of chunks) {
        const o1 = b.map((v, i) => v - a[i]);
        const o2 = c.map((v, i) => v - a[i]);
        if (compare(o1, zero) >= 0 && compare(o2, o1) >= 0) names.add(`${name(o1)}_${name(o2)}`);
      }
  return names;
}

export const vectorCases = [
  {
    name: "vectors: a point cloud's metadata, chunks, box and objects read as zarr-vectors reads them",
    async run(ctx) {
      const want = await json(ctx, "vectors/points.expected.json");
      const zv = await ctx.zarr.openVectors(`${ctx.base}/vectors/points.zarr`);
      deepEqual(
        [zv.version, zv.ndim, zv.levels, zv.geometryTypes],
        ["0.9.2", 3, ["0"], ["point_cloud"]],
        "metadata",
      );
      deepEqual(zv.chunkShape, [25, 25, 25], "chunk shape");
      const level = await zv.level(0);
      equal(level.dtype, "float32", "vertex type");
      ok(
        level.chunks.some((c) => c[0] < 0),
        "chunks at negative coordinates",
      );
      const all = [];
      const withAttributes = [];
      for (const chunk of level.chunks) {
        const part = await zv.readChunk(chunk, { attributes: ["intensity", "colour"] });
        const { intensity, colour } = part.attributes;
        ok(
          intensity.width === 1 && colour.width === 3 && colour.values instanceof Uint8Array,
          `chunk ${chunk}: attribute widths`,
        );
        for (let r = 0; r < part.rows; r++) {
          withAttributes.push([
            ...part.positions.subarray(3 * r, 3 * r + 3),
            intensity.values[r],
            ...colour.values.subarray(3 * r, 3 * r + 3),
          ]);
        }
        ok(
          part.positions instanceof Float32Array && part.positions.length === part.rows * 3,
          `chunk ${chunk}: rows of 3`,
        );
        const rows = part.fragments.flatMap((f) =>
          f.rows ? f.rows : Array.from({ length: f.count }, (_, i) => f.start + i),
        );
        ok(
          rows.length === part.rows &&
            new Set(rows).size === part.rows &&
            rows.every((r) => r >= 0 && r < part.rows),
          `chunk ${chunk}: its fragments tile its rows`,
        );
        all.push(...rowsOf(part.positions, 3));
      }
      deepEqual(sorted(all), sorted(want.whole.positions), "every point");
      const theirs = want.whole.positions.map((p, i) => [
        ...p,
        want.whole.attributes.intensity[i],
        ...want.whole.attributes.colour[i],
      ]);
      deepEqual(
        sorted(withAttributes),
        sorted(theirs),
        "every point with its intensity and colour",
      );
      await rejects(
        zv.readChunk(level.chunks[0], { attributes: ["no_such"] }),
        "NotFoundError",
        [/no_such/],
        "an attribute that is not there",
      );
      const bbox = [
        [-40, 10, 30],
        [-20, 40, 60],
      ];
      const { positions, chunks } = await zv.select({ bbox });
      ok(
        chunks.length < level.chunks.length,
        `only ${chunks.length} of ${level.chunks.length} chunks read`,
      );
      const inside = want.whole.positions.filter((p) =>
        p.every((v, d) => Math.fround(v) >= bbox[0][d] && Math.fround(v) <= bbox[1][d]),
      );
      ok(inside.length > 0, "points in the box");
      deepEqual(sorted(rowsOf(positions, 3)), sorted(inside), "the points inside the box");
      for (const [id, object] of Object.entries(want.objects)) {
        const { positions: mine, attributes } = await zv.readObject(Number(id), {
          attributes: ["intensity"],
        });
        deepEqual(sorted(rowsOf(mine, 3)), sorted(object.positions), `object ${id}`);
        const withIntensity = (rows, values) =>
          rows.map((p, i) => `${point(p)} ${Math.fround(values[i])}`).sort();
        deepEqual(
          withIntensity(rowsOf(mine, 3), attributes.intensity.values),
          withIntensity(object.positions, object.attributes.intensity),
          `object ${id}'s intensities`,
        );
      }
      // The whole level in one read: each point with its object, as zarr-vectors' reads of each
      // object give them.
      const whole = await zv.select({ objectIds: true });
      equal(whole.rows, want.whole.positions.length, "every point");
      ok(
        whole.objectIds instanceof Float64Array && whole.links === undefined,
        "object ids; no links",
      );
      deepEqual(
        rowsOf(whole.positions, 3)
          .map((p, i) => `${point(p)} ${whole.objectIds[i]}`)
          .sort(),
        Object.entries(want.objects)
          .flatMap(([id, o]) => o.positions.map((p) => `${point(p)} ${id}`))
          .sort(),
        "each point's object",
      );
      equal(await zv.readChunk([40, 40, 40]), null, "a chunk outside the grid");
      await rejects(
        zv.readObject(11),
        "SelectionError",
        [/11 objects/],
        "an object that is not there",
      );
      await rejects(zv.level(3), "SelectionError", [/1 levels/], "a level that is not there");
      await rejects(
        zv.level(0.5),
        "SelectionError",
        [/non-negative integer/],
        "a level that is not an integer",
      );
      await rejects(
        zv.select({
          bbox: [
            [0, 0],
            [1, 1],
          ],
        }),
        "SelectionError",
        [/3 values/],
        "a 2-D box in 3-D",
      );
      await rejects(
        zv.readChunk([0, 0]),
        "SelectionError",
        [/must have 3 values/],
        "2 chunk coordinates in 3-D",
      );
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
        deepEqual(
          rowsOf(positions, 2).map((r) => r.join(",")),
          object.positions.map((r) => r.map((v) => Math.fround(v)).join(",")),
          `polyline ${id}`,
        );
      }
      // Steps within a chunk are implied by the order of the vertices; those across chunks are stored.
      const g = await zv.select();
      const steps = want.whole.polylines.flatMap((line) =>
        line.slice(1).map((p, i) => `${point(line[i])} | ${point(p)}`),
      );
      deepEqual(
        linksAsPoints(g, 2),
        steps.sort(),
        "every step of every polyline, in its direction",
      );
      await rejects(
        zv.select({ linkAttributes: ["width"] }),
        "UnsupportedError",
        [/implied by the order of vertices/],
        "attributes of implied links",
      );
      const root = new TextDecoder().decode(await ctx.bytes("vectors/points.zarr/zarr.json"));
      // Hand-made: no writer produces a store of a version to come.
      const future = new ctx.zarr.MemoryStore([
        ["zarr.json", new TextEncoder().encode(root.replace('"0.9.2"', '"2.0.0"'))],
      ]);
      await rejects(
        ctx.zarr.openVectors(future),
        "UnsupportedError",
        [/version 2\.0\.0/],
        "an unknown version",
      );
      await rejects(
        ctx.zarr.openVectors(`${ctx.base}/v3.zarr`),
        "MetadataError",
        [/not a Zarr Vectors store/, /v3\.zarr/],
        "a plain group",
      );
    },
  },
  {
    name: "vectors: a graph's edges with their attributes, whole and in a box, as zarr-vectors reads them",
    async run(ctx) {
      const want = await json(ctx, "vectors/graph.expected.json");
      const zv = await ctx.zarr.openVectors(`${ctx.base}/vectors/graph.zarr`);
      deepEqual(zv.geometryTypes, ["graph"], "a graph");
      const g = await zv.select({ attributes: ["radius"], linkAttributes: ["weight", "kind"] });
      deepEqual(sorted(rowsOf(g.positions, 3)), sorted(want.whole.positions), "every vertex");
      ok(g.edges === g.links.indices && g.links.width === 2, "edges");
      deepEqual(
        linksAsPoints(g, 3),
        theirLinks(want.whole, "edges"),
        "every edge, each way round as written",
      );
      const { weight, kind } = g.linkAttributes;
      ok(
        weight.values instanceof Float32Array && kind.values instanceof Uint8Array,
        "edge attribute types",
      );
      const mine = [];
      for (let e = 0; e < g.edges.length / 2; e++) {
        const [a, b] = [g.edges[2 * e], g.edges[2 * e + 1]].map((v) =>
          point(g.positions.subarray(3 * v, 3 * v + 3)),
        );
        mine.push(`${a} | ${b} ${weight.values[e]} ${kind.values[e]}`);
      }
      const theirs = want.links.map(
        (l) =>
          `${point(l.ends[0])} | ${point(l.ends[1])} ${Math.fround(l.attributes.weight)} ${l.attributes.kind}`,
      );
      deepEqual(mine.sort(), theirs.sort(), "each edge with its weight and kind");
      deepEqual(
        rowsOf(g.positions, 3)
          .map((p, i) => `${point(p)} ${Math.fround(g.attributes.radius.values[i])}`)
          .sort(),
        want.whole.positions
          .map((p, i) => `${point(p)} ${Math.fround(want.whole.attributes.radius[i])}`)
          .sort(),
        "each vertex with its radius",
      );
      const label = await zv.objectAttribute("label");
      deepEqual(
        [Array.from(label.values), label.shape],
        [want.object_attributes.label, [4]],
        "object attribute",
      );
      const box = await zv.select({ bbox: want.bbox.bbox, linkAttributes: ["weight"] });
      deepEqual(
        sorted(rowsOf(box.positions, 3)),
        sorted(want.bbox.positions),
        "the vertices in a box",
      );
      deepEqual(linksAsPoints(box, 3), theirLinks(want.bbox, "edges"), "the edges among them");
      ok(box.chunks.length < (await zv.level(0)).chunks.length, "only the chunks meeting the box");
      await rejects(
        zv.select({ bbox: [[0, 0, 0]] }),
        "SelectionError",
        [/\[min, max\]/],
        "a box without a max",
      );
      await rejects(
        zv.select({ linkAttributes: ["nope"] }),
        "NotFoundError",
        [/nope/],
        "a link attribute that is not there",
      );
    },
  },
  {
    name: "vectors: a sharded copy reads the same, its dense arrays in fewer requests",
    async run(ctx) {
      const want = await json(ctx, "vectors/graph_sharded.expected.json");
      // Requests for the vertices' and fragments' cells: dense arrays, where shards save requests
      // (a link array with a cell or two pays an index request more, sharded).
      const read = async (name) => {
        await ctx.clearLog();
        const zv = await ctx.zarr.openVectors(`${ctx.base}/vectors/${name}.zarr`);
        const g = await zv.select({ attributes: ["radius"], linkAttributes: ["weight"] });
        const requests = (await ctx.requests()).filter((r) =>
          /\/0\/(vertices|vertex_fragments)\/c\//.test(r.path),
        ).length;
        return { g, requests };
      };
      const sharded = await read("graph_sharded");
      deepEqual(
        sorted(rowsOf(sharded.g.positions, 3)),
        sorted(want.whole.positions),
        "every vertex, as zarr-vectors reads the sharded copy",
      );
      deepEqual(linksAsPoints(sharded.g, 3), theirLinks(want.whole, "edges"), "every edge");
      const plain = await read("graph");
      deepEqual(
        [
          sharded.g.positions,
          sharded.g.attributes.radius.values,
          sharded.g.linkAttributes.weight.values,
        ].map((a) => Array.from(a)),
        [
          plain.g.positions,
          plain.g.attributes.radius.values,
          plain.g.linkAttributes.weight.values,
        ].map((a) => Array.from(a)),
        "the same values as the unsharded store",
      );
      ok(
        sharded.requests < plain.requests,
        `${sharded.requests} cell requests sharded, ${plain.requests} not`,
      );
    },
  },
  {
    name: "vectors: a copy compressed with lzma loads the second module as its arrays open, and reads as zarr-vectors reads it",
    async run(ctx) {
      const want = await json(ctx, "vectors/points_lzma.expected.json");
      const zv = await ctx.zarr.openVectors(`${ctx.base}/vectors/points_lzma.zarr`);
      const g = await zv.select({ attributes: ["intensity", "colour"] });
      const { intensity, colour } = g.attributes;
      const mine = rowsOf(g.positions, 3).map((p, i) => [
        ...p,
        intensity.values[i],
        ...colour.values.subarray(3 * i, 3 * i + 3),
      ]);
      const theirs = want.whole.positions.map((p, i) => [
        ...p,
        want.whole.attributes.intensity[i],
        ...want.whole.attributes.colour[i],
      ]);
      equal(mine.length, 300, "every point");
      deepEqual(sorted(mine), sorted(theirs), "every point with its intensity and colour");
    },
  },
  {
    name: "vectors: a mesh's faces keep their winding; a skeleton's edges are (child, parent)",
    async run(ctx) {
      const mesh = await json(ctx, "vectors/mesh.expected.json");
      const m = await (await ctx.zarr.openVectors(`${ctx.base}/vectors/mesh.zarr`)).select({
        attributes: ["height"],
      });
      ok(m.faces instanceof Uint32Array && m.faces.length === 3 * 128, "128 triangles");
      deepEqual(linksAsPoints(m, 3), theirLinks(mesh.whole, "faces"), "every face, in its winding");
      deepEqual(
        Array.from(m.attributes.height.values),
        rowsOf(m.positions, 3).map((p) => p[2]),
        "height is z",
      );
      const skeleton = await json(ctx, "vectors/skeleton.expected.json");
      const s = await (await ctx.zarr.openVectors(`${ctx.base}/vectors/skeleton.zarr`)).select();
      deepEqual(
        linksAsPoints(s, 3),
        theirLinks(skeleton.whole, "edges"),
        "every (child, parent) edge",
      );
    },
  },
  {
    name: "vectors: a pyramid's levels, objects, groups and object attributes (blosc compressed)",
    async run(ctx) {
      const want = await json(ctx, "vectors/pyramid.expected.json");
      const zv = await ctx.zarr.openVectors(`${ctx.base}/vectors/pyramid.zarr`);
      deepEqual(zv.levels, ["0", "1", "2"], "three levels");
      for (const [level, expected] of want.levels.entries()) {
        const g = await zv.select({ level });
        deepEqual(
          sorted(rowsOf(g.positions, 2)),
          sorted(expected.whole.positions),
          `level ${level}`,
        );
        for (const [id, object] of Object.entries(expected.objects)) {
          const { positions } = await zv.readObject(Number(id), { level });
          deepEqual(
            sorted(rowsOf(positions, 2)),
            sorted(object.positions),
            `level ${level} object ${id}`,
          );
        }
        const size = await zv.objectAttribute("size", { level });
        deepEqual(
          Array.from(size.values),
          expected.object_attributes.size,
          `level ${level} object sizes`,
        );
      }
      equal(await zv.groupCount(), want.groups.length, "groups");
      for (const [id, members] of want.groups.entries())
        deepEqual(Array.from(await zv.readGroup(id)), members, `group ${id}`);
      await rejects(zv.readGroup(9), "SelectionError", [/3 groups/], "a group that is not there");
    },
  },
  {
    name: "vectors: links are found through any store that lists or gives its keys (MemoryStore, a Map, list()), and by asking for them where it does not",
    async run(ctx) {
      const want = await json(ctx, "vectors/mesh.expected.json");
      const faces = theirLinks(want.whole, "faces");
      // In memory: a MemoryStore and a plain Map give their keys, the reader lists from them; a
      // store object may list for itself instead.
      const store = new ctx.zarr.MemoryStore();
      for (const key of await ctx.list("vectors/mesh.zarr"))
        store.set(key, await ctx.bytes(`vectors/mesh.zarr/${key}`));
      const listing = {
        get: (key) => store.get(key),
        list: (prefix) => [
          ...new Set(
            [...store.keys()]
              .filter((k) => k.startsWith(`${prefix}/`))
              .map((k) => k.slice(prefix.length + 1).split("/")[0]),
          ),
        ],
      };
      // A store that only gets: the link arrays are asked for by name.
      const onlyGet = { get: (key) => store.get(key) };
      for (const [kind, s] of [
        ["MemoryStore", store],
        ["Map", new Map(store.map)],
        ["store with list()", listing],
        ["store that only gets", onlyGet],
      ]) {
        const m = await (await ctx.zarr.openVectors(s)).select();
        deepEqual(linksAsPoints(m, 3), faces, `faces through a ${kind}`);
      }
    },
  },
  {
    name: "vectors: links over HTTP through consolidated metadata, index pages, S3 and GCS bucket listings, or asked for one by one where nothing lists (request counts)",
    async run(ctx) {
      const want = await json(ctx, "vectors/mesh.expected.json");
      const faces = theirLinks(want.whole, "faces");
      const fixture = "tests/fixtures/vectors/mesh.zarr";
      // The link arrays on disk, and the ones a whole read could need, found the slow way: every
      // source chunk with every pair of chunks, offsets non-negative and sorted (a canonical
      // family of triangles stores each once, its endpoints sorted).
      const arrays = new Set(
        (await ctx.list("vectors/mesh.zarr"))
          .map((k) => /^0\/links\/0\/([^/]+)\/zarr\.json$/.exec(k)?.[1])
          .filter(Boolean),
      );
      const chunks = (await (await ctx.zarr.openVectors(`${ctx.base}/vectors/mesh.zarr`)).level(0))
        .chunks;
      const candidates = canonicalFaceArrays(chunks);
      ok(
        [...arrays].every((a) => candidates.has(a)) && candidates.size > arrays.size,
        `${candidates.size} candidates hold the ${arrays.size} arrays`,
      );
      const linkRequests = (log, root) => log.filter((e) => e.path.startsWith(`${root}/0/links/`));
      const read = async (url, options, label, want = faces) => {
        await ctx.clearLog();
        const zv = await ctx.zarr.openVectors(new ctx.zarr.FetchStore(url, options));
        deepEqual(linksAsPoints(await zv.select(), 3), want, `faces ${label}`);
        const first = await ctx.requests();
        // A second read asks for nothing it asked for before.
        await ctx.clearLog();
        deepEqual(linksAsPoints(await zv.select(), 3), want, `faces ${label}, again`);
        return { first, again: await ctx.requests() };
      };
      const arrayMetadata = (log, root) =>
        linkRequests(log, root).filter((e) => /\/0\/links\/0\/[^/]+\/zarr\.json$/.test(e.path));
      // Consolidated metadata (zarr-python's, in the root zarr.json): no request for links' metadata
      // at all, even from a server without index pages.
      {
        const root = "/__nolist/tests/fixtures/vectors/mesh_consolidated.zarr";
        const consolidated = await json(ctx, "vectors/mesh_consolidated.expected.json");
        const { first } = await read(
          `${ctx.origin}${root}`,
          {},
          "through consolidated metadata",
          theirLinks(consolidated.whole, "faces"),
        );
        equal(
          linkRequests(first, root).filter(
            (e) => e.path.endsWith("zarr.json") || e.path.endsWith("/"),
          ).length,
          0,
          "no listing and no link array's metadata asked for",
        );
        ok(linkRequests(first, root).length > 0, "the link cells are read");
      }
      // Index pages: one listing, then each array's metadata.
      {
        const root = `/${fixture}`;
        const { first, again } = await read(`${ctx.origin}${root}`, {}, "through index pages");
        const pages = linkRequests(first, root).filter((e) => e.path.endsWith("/0/links/0/"));
        equal(pages.length, 1, "one index page");
        equal(arrayMetadata(first, root).length, arrays.size, "each array's metadata once");
        equal(arrayMetadata(again, root).length, 0, "nothing asked again");
        // A box inside one chunk opens only the arrays its chunk can link through: its own.
        await ctx.clearLog();
        const zv = await ctx.zarr.openVectors(`${ctx.origin}${root}`);
        // Mesh chunks are 15 x 15 x 10: a small box inside the first occupied one.
        const lo = chunks[0].map((k, d) => k * [15, 15, 10][d] + 1);
        const box = await zv.select({ bbox: [lo, lo.map((v) => v + 1)] });
        deepEqual(box.chunks, [chunks[0]], "one chunk read");
        deepEqual(
          arrayMetadata(await ctx.requests(), root).map((e) => e.path.split("/").at(-2)),
          ["0.0.0_0.0.0"],
          "a box: only the array within its chunk opened",
        );
      }
      // S3: ListObjectsV2 pages of 8 (the test bucket's), no index page, no 404.
      for (const [kind, bucket, listed] of [
        ["s3", "/__s3/bucket", (e) => e.path === "/__s3/bucket/"],
        ["gcs", "/__gcs/bucket", (e) => e.path === "/__gcs/storage/v1/b/bucket/o"],
      ]) {
        const root = `${bucket}/${fixture}`;
        const { first } = await read(
          `${ctx.origin}${root}`,
          { listing: { [kind]: `${ctx.origin}${bucket}` } },
          `through a ${kind} bucket's listing`,
        );
        // The family's entries: its arrays and its zarr.json.
        equal(
          first.filter(listed).length,
          Math.ceil((arrays.size + 1) / 8),
          `${kind}: listing pages`,
        );
        equal(
          arrayMetadata(first, root).length,
          arrays.size,
          `${kind}: each array's metadata once`,
        );
        equal(
          first.filter((e) => e.status === 404 || e.status === 403).length,
          0,
          `${kind}: no misses`,
        );
      }
      // No listing (a server without index pages, a bucket that refuses to list): every
      // candidate asked for, concurrently, the missing ones one miss each: a 404, or the 403 an
      // S3 bucket gives a reader that may not list it.
      for (const [label, root, options, miss] of [
        ["without index pages", `/__nolist/${fixture}`, {}, 404],
        [
          "an S3 bucket that refuses to list (403)",
          `/__s3/bucket/${fixture}`,
          { listing: { s3: `${ctx.origin}/__status/403` } },
          403,
        ],
        ["told not to list", `/${fixture}`, { listing: "none" }, 404],
      ]) {
        const { first, again } = await read(`${ctx.origin}${root}`, options, label);
        const asked = arrayMetadata(first, root);
        equal(asked.length, candidates.size, `${label}: each candidate asked for once`);
        equal(
          asked.filter((e) => e.status === miss).length,
          candidates.size - arrays.size,
          `${label}: a ${miss} for each array not there`,
        );
        ok(Math.max(...asked.map((e) => e.active)) > 1, `${label}: asked for concurrently`);
        equal(arrayMetadata(again, root).length, 0, `${label}: nothing asked again`);
      }
      // A listing that is not of the directory (a site's fallback page for every path): the
      // arrays are asked for by name, as without one.
      {
        const root = `/${fixture}`;
        const fallback = async (request) => {
          const url = new URL(request.url);
          if (url.pathname.endsWith("/0/links/0/"))
            return new Response('<a href="index.html">home</a><a href="about">about</a>');
          return fetch(request);
        };
        const { first } = await read(
          `${ctx.origin}${root}`,
          { fetch: fallback, listing: "index" },
          "with a fallback page for a listing",
        );
        equal(arrayMetadata(first, root).length, candidates.size, "fallback page: asked by name");
      }
      await rejects(
        (async () =>
          ctx.zarr.openVectors(
            new ctx.zarr.FetchStore(`${ctx.base}/vectors/mesh.zarr`, { listing: "everything" }),
          ))(),
        "RangeError",
        [/listing must be/],
        "an unknown listing",
      );
    },
  },
  {
    name: "vectors: a pyramid's links between levels (links/+1, links/-1) read as zarr-vectors reads them, whole and in a box, listed or not",
    async run(ctx) {
      const want = await json(ctx, "vectors/pyramid.expected.json");
      const box = [
        [10, 20],
        [40, 50],
      ];
      const inBox = (p) =>
        p.every((v, d) => Math.fround(v) >= box[0][d] && Math.fround(v) <= box[1][d]);
      for (const url of [
        `${ctx.base}/vectors/pyramid.zarr`,
        `${ctx.origin}/__nolist/tests/fixtures/vectors/pyramid.zarr`,
      ]) {
        const zv = await ctx.zarr.openVectors(url);
        for (const [level, expected] of want.levels.entries()) {
          for (const [name, records] of Object.entries(expected.cross_links)) {
            const delta = Number(name);
            for (const bbox of [undefined, box]) {
              const here = (await zv.select({ level, bbox })).positions;
              const there = (await zv.select({ level: level + delta, bbox })).positions;
              const links = await zv.crossLinks({ level, delta, bbox });
              equal(links.width, 2, "pairs");
              const got = rowsOf(links.indices, 2).map(
                ([a, b]) =>
                  `${point(here.subarray(2 * a, 2 * a + 2))} -> ${point(there.subarray(2 * b, 2 * b + 2))}`,
              );
              const theirs = records
                .filter(([a, b]) => !bbox || (inBox(a) && inBox(b)))
                .map(([a, b]) => `${point(a)} -> ${point(b)}`);
              ok(theirs.length > 0, "links to compare");
              deepEqual(
                got,
                theirs,
                `level ${level} to ${name}${bbox ? " in a box" : ""} (${url})`,
              );
            }
          }
        }
        equal(await zv.crossLinks({ level: 0, delta: 2 }), null, "no links two levels up");
        await rejects(
          zv.crossLinks({ level: 0, delta: -1 }),
          "SelectionError",
          [],
          "finer than the finest",
        );
        await rejects(
          zv.crossLinks({ level: 1, delta: 0 }),
          "SelectionError",
          [/non-zero/],
          "delta 0",
        );
        await rejects(
          zv.crossLinks({ level: 2, delta: 1 }),
          "SelectionError",
          [/3 levels/],
          "past the coarsest",
        );
      }
    },
  },
];
