// The HTTP store against servers as they are: without suffix ranges, ignoring Range, failing
// with 5xx, forbidding with 403; request limits, headers, a custom fetch, and aborts.
import { deepEqual, equal, ok, rejects } from "../support/check.mjs";

/** A fetch that records, for each request, whether it had a Range header and whether it was refused. */
function recordingFetch() {
  const seen = [];
  const fetchOf = async (request) => {
    const entry = { range: request.headers.get("Range"), refused: false };
    seen.push(entry);
    try {
      return await fetch(request);
    } catch (err) {
      entry.refused = true;
      throw err;
    }
  };
  return { seen, fetch: fetchOf };
}

export const httpCases = [
  {
    name: "a CORS server that does not allow Range: from another origin, HEAD and explicit ranges by default (no preflight); with suffix ranges, whole values once ranged requests are refused twice, remembered for its location (another origin in Chromium; Node has no CORS and reads by range)",
    async run(ctx) {
      const { open, FetchStore } = ctx.zarr;
      const inBrowser = typeof document !== "undefined";
      // Another origin for the page: the same server by another name.
      const origin = inBrowser ? ctx.origin.replace("127.0.0.1", "localhost") : ctx.origin;
      ok(origin !== ctx.origin || !inBrowser, `another origin: ${origin}`);
      const location = `${origin}/__corsnorange/tests/fixtures/codecs.zarr`;
      const expected = async (path) =>
        (await (await open(`${ctx.base}/codecs.zarr`, { path })).get()).data;
      const same = (got, want, what) => {
        equal(got.length, want.length, `${what}: elements`);
        ok(
          got.every((v, i) => v === want[i]),
          `${what}: every element as zarr-python wrote it`,
        );
      };

      // The default from another origin: HEAD for the shard's length, then explicit ranges, which
      // need no preflight, so the server's CORS rules need not allow the Range header.
      const byDefault = recordingFetch();
      const plain = await open(new FetchStore(`${location}/sharding`, { fetch: byDefault.fetch }), {
        path: "index_end",
      });
      same((await plain.get()).data, await expected("sharding/index_end"), "by default, whole");
      equal(
        (await plain.get([40, 45])).data[0],
        (await expected("sharding/index_end"))[40 * 60 + 45],
        "by default, one element",
      );
      deepEqual(
        byDefault.seen.filter((r) => r.refused),
        [],
        "by default, nothing refused",
      );
      ok(
        byDefault.seen.some((r) => r.range),
        `by default, read by range: ${JSON.stringify(byDefault.seen)}`,
      );
      ok(
        byDefault.seen.every((r) => !r.range?.startsWith("bytes=-")) === inBrowser,
        inBrowser ? "no suffix range from another origin" : "suffix ranges in Node",
      );

      // Suffix ranges asked for: refused (the preflight does not allow Range), then whole values.
      const first = recordingFetch();
      const arr = await open(
        new FetchStore(location, { fetch: first.fetch, suffixRequests: true }),
        { path: "sharding/index_end" },
      );
      // Single elements: an inner chunk each, read by range where ranges work.
      const points = [
        [40, 45],
        [3, 3],
        [49, 59],
      ];
      const reads = async (node, path) => {
        const want = await expected(path);
        for (const [y, x] of points)
          equal((await node.get([y, x])).data[0], want[y * 60 + x], `${path} at ${y}, ${x}`);
      };
      await reads(arr, "sharding/index_end");
      const ranged = first.seen.filter((r) => r.range);
      const refused = first.seen.filter((r) => r.refused);
      if (inBrowser) {
        equal(
          refused.length,
          2,
          `ranged requests refused before the fallback: ${JSON.stringify(first.seen)}`,
        );
        ok(
          refused.every((r) => r.range),
          "only ranged requests were refused",
        );
        equal(ranged.length, 2, "no ranged request after the fallback");
      } else {
        equal(refused.length, 0, "nothing refused in Node");
        ok(ranged.length > 0, "Node reads the shards by range");
      }

      // Another store of the same location knows already: no ranged request at all.
      const second = recordingFetch();
      const other = await open(
        new FetchStore(location, { fetch: second.fetch, suffixRequests: true }),
        { path: "sharding/index_start" },
      );
      await reads(other, "sharding/index_start");
      same((await other.get()).data, await expected("sharding/index_start"), "the second, whole");
      if (inBrowser)
        deepEqual(
          second.seen.filter((r) => r.range || r.refused),
          [],
          "no ranged or refused request at a location known to refuse them",
        );
      else
        ok(
          second.seen.some((r) => r.range),
          "Node reads the second by range too",
        );
    },
  },
  {
    name: "a server without suffix ranges: HEAD + range once it refuses, remembered; or chosen up front",
    async run(ctx) {
      const { open, FetchStore } = ctx.zarr;
      const where = (r) => `${r.method} ${r.range ?? ""}`.trim();
      // Read first, so that the module is loaded: a first open() of a page or process asks for
      // a small array's shard indexes from JS, and the module's own requests are the point here.
      const whole = (
        await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" }).then((a) => a.get())
      ).data;
      const arr = await open(`${ctx.origin}/__nosuffix/tests/fixtures/codecs.zarr`, {
        path: "sharding/index_end",
      });
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
    name: "a server without suffix ranges: the shards of a view read at once cost one refused suffix range, not one each",
    async run(ctx) {
      const { open, slice } = ctx.zarr;
      const whole = (
        await open(`${ctx.base}/codecs.zarr`, { path: "sharding/index_end" }).then((a) => a.get())
      ).data;
      // A location of its own (what a location taught is kept for the page's life).
      const arr = await open(`${ctx.origin}/__nosuffix/tests/fixtures`, {
        path: "codecs.zarr/sharding/index_end",
      });
      await ctx.clearLog();
      // An element of each of the 2 x 2 shards, read at once: their indexes are asked for
      // together (a whole shard would be read whole, without its index).
      const points = [
        [0, 8],
        [0, 40],
        [32, 8],
        [32, 40],
      ];
      const at = async ([y, x]) => (await arr.get([slice(y, y + 1), slice(x, x + 1)])).data[0];
      deepEqual(
        await Promise.all(points.map(at)),
        points.map(([y, x]) => whole[y * 60 + x]),
        "the values",
      );
      const log = await ctx.requests();
      const refused = log.filter((r) => r.status === 416);
      equal(refused.length, 1, `one refused: ${JSON.stringify(log)}`);
      equal(log.filter((r) => r.method === "HEAD").length, 4, "then each index by HEAD and range");
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
        (async () => open(new FetchStore(`${ctx.base}/v3.zarr`, { retries: "3" })))(),
        "TypeError",
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
];
