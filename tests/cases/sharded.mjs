// Sharded arrays over HTTP: what a cold read costs, indexes at either end, inner chunks merged
// into one request, the store's merge gap and index cache, nested shards.
import { deepEqual, equal, ok } from "../support/check.mjs";

export const shardedCases = [
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
    name: "shards behind a transpose (zarr-python's filters with a sharding serializer) are read in parts: metadata, index, one inner chunk",
    async run(ctx) {
      const { open } = ctx.zarr;
      await ctx.clearLog();
      const arr = await open(`${ctx.base}/codecs.zarr`, { path: "sharding/transpose_outside" });
      const { data } = await arr.get([23, 25]);
      const log = (await ctx.requests()).map((r) =>
        `${r.path.replace(/.*codecs\.zarr\//, "")} ${r.range ?? ""}`.trim(),
      );
      equal(log.length, 3, `requests: ${JSON.stringify(log)}`);
      equal(log[1], "sharding/transpose_outside/c/1/1 bytes=-164", "the index, from the end");
      ok(/ bytes=\d+-\d+$/.test(log[2]), `one inner chunk range: ${log[2]}`);
      const whole = (await arr.get()).data;
      equal(data[0], whole[23 * 44 + 25], "value");
      deepEqual(arr.innerChunks, [10, 4], "inner chunks in the array's axes");
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
];
