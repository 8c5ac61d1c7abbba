// Icechunk repositories (IcechunkStore): tests/fixtures/icechunk/, written by the icechunk Python
// package (scripts/make_icechunk_fixtures.py), read at each branch, tag and snapshot the script
// read them at, value by value against what icechunk read; manifests fetched only when a read
// needs them; virtual chunks only from allowed containers; missing refs; bad options.
import { deepEqual, equal, ok, rejects } from "../support/check.mjs";

/** The expected values the fixture script wrote. */
async function expected(ctx) {
  return JSON.parse(new TextDecoder().decode(await ctx.bytes("icechunk.expected.json")));
}

/** The fixture's container, served by the test server below tests/fixtures/icechunk/. */
const CONTAINER = "https://example.org/icechunk/";

/** The IcechunkStore of repository `repo` at `version` ("branch:main", "tag:v1", "snapshot:<id>"). */
function storeOf(ctx, repo, version = "branch:main", more = {}) {
  const { IcechunkStore } = ctx.zarr;
  const [kind, name] = version.split(":");
  return new IcechunkStore(`${ctx.base}/icechunk/${repo}`, {
    [kind]: name,
    allowedContainers: [CONTAINER],
    urlMap: { [CONTAINER]: `${ctx.base}/icechunk/` },
    ...more,
  });
}

/** `data` equals the JSON values `want` (null for NaN), each as its type rounds it. */
function sameNumbers(data, want, what) {
  equal(data.length, want.length, `${what}: length`);
  const float32 = data instanceof Float32Array;
  for (let i = 0; i < want.length; i++) {
    const w = want[i] === null ? Number.NaN : float32 ? Math.fround(want[i]) : want[i];
    if (!Object.is(data[i], w) && !(Number.isNaN(data[i]) && Number.isNaN(w)))
      throw new Error(`${what}: element ${i} is ${data[i]}, not ${w}`);
  }
}

/** The requests the server saw below the repository `repo`. */
const below = (log, repo) =>
  log.filter((r) => r.path.includes(`/icechunk/${repo}/`)).map((r) => r.path.split(`/${repo}/`)[1]);

export const icechunkCases = [
  {
    name: "icechunk: every array of the spec 2 and spec 1 repositories at each branch, tag and snapshot reads as icechunk read it (native, inline, virtual with plain, dictionary-compressed and container-relative (vcc://) locations, missing and sharded chunks, manifests split by region), and the groups' attributes",
    async run(ctx) {
      const { open } = ctx.zarr;
      const all = (await expected(ctx)).repositories;
      let arrays = 0;
      for (const [repo, versions] of Object.entries(all)) {
        for (const [version, want] of Object.entries(versions)) {
          const store = storeOf(ctx, repo, version);
          for (const [path, a] of Object.entries(want.arrays)) {
            const what = `${repo} ${version} ${path}`;
            const arr = await open(store, { path, kind: "array" });
            equal(arr.dtype, a.dtype, `${what}: dtype`);
            deepEqual(arr.shape, a.shape, `${what}: shape`);
            deepEqual(arr.attrs, a.attributes, `${what}: attributes`);
            const { data } = await arr.get();
            sameNumbers(data, a.values, what);
            arrays++;
          }
          for (const [path, attrs] of Object.entries(want.groups)) {
            const g = await open(store, { path, kind: "group" });
            deepEqual(g.attrs, attrs, `${repo} ${version} group ${JSON.stringify(path)}`);
          }
        }
      }
      equal(arrays, 47, "arrays read");
      // What changed between versions did change: a chunk rewritten on main after the tag.
      const at = async (version) =>
        (await (await open(storeOf(ctx, "v2", version), { path: "grid/native" })).get()).data[0];
      equal(await at("branch:main"), 42, "main has the rewritten chunk");
      ok((await at("tag:v1")) !== 42, "the tag has the first commit's chunk");
    },
  },
  {
    name: "icechunk: opening reads the ref and the snapshot only; each manifest is fetched when a read first needs it, once",
    async run(ctx) {
      const { open } = ctx.zarr;
      await ctx.clearLog();
      const store = storeOf(ctx, "v2");
      const small = await open(store, { path: "small", kind: "array" });
      const opened = below(await ctx.requests(), "v2");
      equal(opened.length, 2, `the repo file and the snapshot: ${opened}`);
      equal(opened[0], "repo", "the repo file first");
      ok(opened[1].startsWith("snapshots/"), "then the snapshot");
      await ctx.clearLog();
      await small.get();
      const read = below(await ctx.requests(), "v2");
      equal(read.length, 1, `one manifest, and no chunk file (small's chunks are inline): ${read}`);
      ok(read[0].startsWith("manifests/"), "a manifest");
      await ctx.clearLog();
      const native = await open(store, { path: "grid/native", kind: "array" });
      await native.getChunk([1, 1]);
      const more = below(await ctx.requests(), "v2");
      ok(
        more.every((k) => k.startsWith("chunks/") || k.startsWith("manifests/")),
        `a manifest, if another holds it, and the chunk: ${more}`,
      );
      equal(more.filter((k) => k.startsWith("chunks/")).length, 1, "one chunk file read");
      await ctx.clearLog();
      await native.getChunk([1, 0]);
      const again = below(await ctx.requests(), "v2");
      equal(again.length, 1, `the manifest is kept, and the chunk file read: ${again}`);
      ok(again[0].startsWith("chunks/"), "a chunk file");
      // Its chunk rewritten on main as 42s compresses under the inline threshold: no chunk file.
      await ctx.clearLog();
      const chunk = await native.getChunk([0, 0]);
      ok(
        chunk.data.every((v) => v === 42),
        "the rewritten chunk",
      );
      deepEqual(below(await ctx.requests(), "v2"), [], "an inline chunk needs no request");
    },
  },
  {
    name: "icechunk: a virtual chunk outside the allowed containers is a StoreError naming its URL and allowedContainers; a missing branch or tag is a NotFoundError naming it",
    async run(ctx) {
      const { open, IcechunkStore } = ctx.zarr;
      for (const allowed of [undefined, ["https://example.org/other/"]]) {
        const store = new IcechunkStore(`${ctx.base}/icechunk/v2`, { allowedContainers: allowed });
        const arr = await open(store, { path: "virtual", kind: "array" });
        await rejects(
          arr.get(),
          "StoreError",
          [/https:\/\/example\.org\/icechunk\/virtual\.bin/, /allowedContainers/],
          `the virtual array, containers ${allowed}`,
        );
      }
      // Containers are compared as fetch reads URLs, by whole path segments, on the main thread
      // and through workers: a prefix without its final slash admits no longer name
      // ("https://example.org/icech" once admitted .../icechunk/virtual.bin), and one written
      // otherwise (case, default port, dot segments) admits what its normal form does.
      const want = (await expected(ctx)).repositories.v2["branch:main"].arrays.virtual.values;
      const pool = new ctx.zarr.WorkerPool(2);
      try {
        for (const workers of [undefined, pool]) {
          const where = workers ? "through workers" : "on the main thread";
          const partial = storeOf(ctx, "v2", "branch:main", {
            allowedContainers: ["https://example.org/icech"],
          });
          const refused = await open(partial, { path: "virtual", kind: "array", workers });
          await rejects(
            refused.get(),
            "StoreError",
            [/https:\/\/example\.org\/icechunk\/virtual\.bin/, /allowedContainers/],
            `a container prefix that ends inside a segment, ${where}`,
          );
          const spelt = storeOf(ctx, "v2", "branch:main", {
            allowedContainers: ["HTTPS://Example.org:443/icechunk/x/../"],
          });
          const arr = await open(spelt, { path: "virtual", kind: "array", workers });
          sameNumbers((await arr.get()).data, want, `a container spelt otherwise, ${where}`);
          arr.free();
          refused.free();
        }
      } finally {
        pool.terminate();
      }
      await rejects(
        open(storeOf(ctx, "v2", "branch:nope")),
        "NotFoundError",
        [/branch "nope"/, /"main"/],
        "a missing branch",
      );
      await rejects(
        open(storeOf(ctx, "v1", "tag:nope")),
        "NotFoundError",
        [/tag "nope"/],
        "a missing tag of spec version 1",
      );
      await rejects(
        open(storeOf(ctx, "v2", "snapshot:00000000000000000000")),
        "NotFoundError",
        [/snapshot 00000000000000000000/],
        "a missing snapshot",
      );
    },
  },
  {
    name: "icechunk: options it does not take are a TypeError or RangeError naming them",
    async run(ctx) {
      const { IcechunkStore } = ctx.zarr;
      const url = `${ctx.base}/icechunk/v2`;
      const throwsAs = (Class, options, pattern) => {
        let error = null;
        try {
          new IcechunkStore(url, options);
        } catch (e) {
          error = e;
        }
        ok(error instanceof Class, `${JSON.stringify(options)}: ${error}`);
        ok(pattern.test(error.message), `${error.message} does not match ${pattern}`);
      };
      throwsAs(RangeError, { branch: "main", tag: "v1" }, /branch and tag/);
      throwsAs(RangeError, { snapshot: "abc" }, /snapshot must be a snapshot id/);
      throwsAs(TypeError, { allowedContainers: "https://x/" }, /allowedContainers/);
      throwsAs(TypeError, { allowedContainers: [1] }, /allowedContainers\[0\]/);
      throwsAs(TypeError, { brnch: "main" }, /did you mean "branch"/);
      throwsAs(TypeError, 5, /options must be an object/);
    },
  },
  {
    name: "icechunk: a repository whose ref, snapshot, manifests and chunks arrive in 1-byte writes reads as icechunk read it",
    async run(ctx) {
      const { open } = ctx.zarr;
      // The repository's files and the virtual chunks' file, one byte per write.
      const parted = { ...ctx, base: ctx.base.replace(ctx.origin, `${ctx.origin}/__parts/1`) };
      const want = (await expected(ctx)).repositories.v2["branch:main"].arrays;
      const store = storeOf(parted, "v2", "branch:main");
      const paths = Object.keys(want);
      ok(paths.length >= 5, `arrays on main (${paths.length})`);
      for (const path of paths) {
        const arr = await open(store, { path, kind: "array" });
        sameNumbers((await arr.get()).data, want[path].values, `${path} in 1-byte writes`);
      }
    },
  },
  {
    name: "icechunk: an IcechunkStore read through workers, virtual chunks and all",
    async run(ctx) {
      const { open } = ctx.zarr;
      const want = (await expected(ctx)).repositories.v2["tag:v1"].arrays;
      const pool = new ctx.zarr.WorkerPool(2);
      try {
        const store = storeOf(ctx, "v2", "tag:v1");
        for (const path of ["grid/native", "virtual", "sharded"]) {
          const arr = await open(store, { path, workers: pool });
          sameNumbers((await arr.get()).data, want[path].values, `${path} through two workers`);
          arr.free();
        }
      } finally {
        pool.terminate();
      }
    },
  },
  {
    name: "icechunk: a commit to the branch after open() is seen by none of the node's reads, on the main thread, through workers or after the module's instance is replaced: all read the snapshot open() found",
    async run(ctx) {
      const { open, releaseMemory } = ctx.zarr;
      const want = (await expected(ctx)).repositories.v1;
      const before = want["branch:main"].arrays.small.values;
      const after = want["branch:side"].arrays.small.values;
      ok(JSON.stringify(before) !== JSON.stringify(after), "the two snapshots differ");
      const store = storeOf(ctx, "v1", "branch:main");
      const pool = new ctx.zarr.WorkerPool(2); // reads wait for its workers, which start now
      try {
        const pooled = await open(store, { path: "small", kind: "array", workers: pool });
        const here = await open(store, { path: "small", kind: "array" });
        // The commit: the branch's ref now names another snapshot (spec 1: a ref file a branch).
        const side = await ctx.bytes("icechunk/v1/refs/branch.side/ref.json");
        await ctx.override("/tests/fixtures/icechunk/v1/refs/branch.main/ref.json", side);
        sameNumbers((await here.get()).data, before, "on the main thread");
        sameNumbers((await pooled.get()).data, before, "through the workers");
        equal(releaseMemory(), true, "a fresh instance");
        sameNumbers((await here.get()).data, before, "in a fresh instance");
        sameNumbers((await pooled.get()).data, before, "through the workers, again");
        // A store opened after the commit reads it.
        const fresh = await open(storeOf(ctx, "v1", "branch:main"), { path: "small" });
        sameNumbers((await fresh.get()).data, after, "a store opened after the commit");
      } finally {
        await ctx.clearOverrides();
        pool.terminate();
      }
    },
  },
  {
    name: "icechunk: the virtual chunks of one file that a read needs are fetched in merged range requests",
    async run(ctx) {
      const { open } = ctx.zarr;
      const store = storeOf(ctx, "v2");
      const ranges = async () =>
        (await ctx.requests()).filter((r) => r.path.endsWith("/virtual.bin")).map((r) => r.range);
      const virtual = await open(store, { path: "virtual", kind: "array" });
      await ctx.clearLog();
      await virtual.get();
      // Three chunks at 16..80, 80..144 and 160..224: within mergeGap of each other.
      deepEqual(await ranges(), ["bytes=16-223"], "one request for the three");
      const many = await open(store, { path: "virtual_many", kind: "array" });
      await ctx.clearLog();
      await many.get();
      deepEqual(await ranges(), ["bytes=16-143"], "32 chunks back to back, one request");
    },
  },
];
