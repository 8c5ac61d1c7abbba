// Stores beyond HTTP and the error classes, shared by Node and headless Chromium like read.mjs:
// memory, a user's own store object, ZIP archives (over HTTP and in memory), and errors that
// callers test with instanceof.
import { bytesOf, deepEqual, equal, ok, rejects, sameBytes } from "../support/check.mjs";

/** A fixture array's expected bytes (from a manifest's entry). */
async function expected(ctx, manifest, store, path) {
  const m = await (await fetch(`${ctx.base}/${manifest}`)).json();
  const entry = m.arrays.find((e) => e.store === store && e.path === path);
  return ctx.bytes(entry.data);
}

/** A user's store: fetch below `base`, counting its calls. */
function userStore(base) {
  const calls = [];
  return {
    calls,
    url: base,
    async get(key, { signal } = {}) {
      calls.push(["get", key, signal instanceof AbortSignal]);
      const r = await fetch(`${base}/${key}`, { signal });
      return r.status === 404 ? undefined : new Uint8Array(await r.arrayBuffer());
    },
    async getRange(key, range, { signal } = {}) {
      calls.push(["getRange", key, range, signal instanceof AbortSignal]);
      const header =
        range.suffixLength !== undefined
          ? `bytes=-${range.suffixLength}`
          : `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`;
      const r = await fetch(`${base}/${key}`, { headers: { Range: header }, signal });
      return r.status === 404 ? undefined : new Uint8Array(await r.arrayBuffer());
    },
  };
}

export const storeCases = [
  {
    name: "errors are classes: instanceof NotFoundError, StoreError with the HTTP status, ZarrError for all",
    async run(ctx) {
      const {
        open,
        ZarrError,
        NotFoundError,
        StoreError,
        SelectionError,
        MetadataError,
        CodecError,
      } = ctx.zarr;
      const missing = await rejects(
        open(`${ctx.base}/v3.zarr`, { path: "no/such" }),
        "NotFoundError",
        [/no\/such\/zarr\.json/],
        "missing",
      );
      ok(
        missing instanceof NotFoundError &&
          missing instanceof ZarrError &&
          missing instanceof Error,
        "NotFoundError is a ZarrError and an Error",
      );
      const http = await rejects(
        open(`${ctx.origin}/__status/500/tests/fixtures/v3.zarr`),
        "StoreError",
        [/500/],
        "HTTP 500",
      );
      ok(http instanceof StoreError, "a StoreError");
      equal(http.status, 500, "its status");
      const forbidden = await rejects(
        open(`${ctx.origin}/__status/403/tests/fixtures/v3.zarr`, { path: "x" }),
        "StoreError",
        [/403/],
        "403",
      );
      equal(forbidden.status, 403, "403 status");
      const arr = await open(`${ctx.base}/v3.zarr`, { path: "dtypes/uint16" });
      const selection = await rejects(
        arr.get([99]),
        "SelectionError",
        [/out of bounds/],
        "selection",
      );
      ok(selection instanceof SelectionError, "a SelectionError");
      let thrown = null;
      try {
        arr.chunkExtent([9, 9]);
      } catch (e) {
        thrown = e;
      }
      ok(thrown instanceof SelectionError, "chunkExtent throws a SelectionError");
      ok(
        (await rejects(
          open(`${ctx.base}/bad.zarr`, { path: "not_json" }),
          "MetadataError",
          [/not valid JSON/],
          "json",
        )) instanceof MetadataError,
        "MetadataError",
      );
      const bad = await open(`${ctx.base}/bad.zarr`, { path: "truncated_gzip" });
      ok(
        (await rejects(bad.get(), "CodecError", [/gzip/], "codec")) instanceof CodecError,
        "CodecError",
      );
      equal(
        new NotFoundError("x").name,
        "NotFoundError",
        "names are set, not taken from the (minifiable) class",
      );
    },
  },
  {
    name: "attributes reach JS as JSON.parse reads the document: key order, numbers, nesting, a __proto__ key as an own property",
    async run(ctx) {
      const { open, MemoryStore } = ctx.zarr;
      // Hand-made: the conversion of parsed JSON to JS values is the subject, not a writer's output.
      const text = `{"zarr_format": 3, "node_type": "group", "attributes": {"z": 1, "a": [1.5, -0.0,
        null, true, "s\\u00e9\\ud83d\\ude00"], "__proto__": {"polluted": 1}, "big": 18446744073709551615,
        "neg": -9223372036854775808, "tiny": 5e-324, "nested": {"b": {"c": []}, "a": {}}, "z2": NaN}}`;
      const memory = new MemoryStore([["zarr.json", new TextEncoder().encode(text)]]);
      const group = await open(memory, { kind: "group" });
      const want = JSON.parse(text.replace("NaN", '"NaN"')).attributes;
      deepEqual(Object.keys(group.attrs), Object.keys(want), "key order");
      deepEqual(group.attrs, want, "values");
      ok(Object.is(group.attrs.a[1], -0), "-0.0 stays negative zero");
      equal(group.attrs.big, 2 ** 64, "a u64 past 2^53, as a double");
      equal(group.attrs.neg, -(2 ** 63), "i64's least");
      equal(group.attrs.tiny, 5e-324, "the least subnormal");
      equal(group.attrs.a[4], "s\u00e9\u{1f600}", "escapes");
      ok(Object.hasOwn(group.attrs, "__proto__"), "__proto__ is an own property");
      equal(Object.getPrototypeOf(group.attrs), Object.prototype, "the prototype is untouched");
      equal({}.polluted, undefined, "nothing polluted");
      equal(group.attrs.z2, "NaN", "Python's NaN as the string");
    },
  },
  {
    name: "a MemoryStore holds a hierarchy in memory; a user's store object is read with get and getRange",
    async run(ctx) {
      const { open, MemoryStore } = ctx.zarr;
      const memory = new MemoryStore();
      for (const key of ["zarr.json", "dtypes/zarr.json", "dtypes/uint16/zarr.json"])
        memory.set(key, await ctx.bytes(`v3.zarr/${key}`));
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++)
          memory.set(
            `dtypes/uint16/c/${i}/${j}`,
            await ctx.bytes(`v3.zarr/dtypes/uint16/c/${i}/${j}`),
          );
      const arr = await open(memory, { path: "dtypes/uint16" });
      sameBytes(
        bytesOf((await arr.get()).data),
        await expected(ctx, "v3.expected.json", "v3.zarr", "dtypes/uint16"),
        "values from memory",
      );
      await ctx.clearLog();
      await open(memory, { path: "dtypes" });
      equal((await ctx.requests()).length, 0, "no HTTP request");

      const user = userStore(`${ctx.base}/codecs.zarr`);
      const sharded = await open(user, { path: "sharding/index_end" });
      const whole = (await sharded.get()).data;
      sameBytes(
        bytesOf(whole),
        await expected(ctx, "v3.expected.json", "codecs.zarr", "sharding/index_end"),
        "values from a user's store",
      );
      user.calls.length = 0;
      const fresh = await open(user, { path: "sharding/index_end" });
      const controller = new AbortController();
      equal(
        (await fresh.get([40, 45], { signal: controller.signal })).data[0],
        whole[40 * 60 + 45],
        "one element",
      );
      deepEqual(
        user.calls.map((c) => c[0]),
        ["get", "getRange", "getRange"],
        "metadata, then the shard index and one inner chunk as ranges",
      );
      deepEqual(user.calls[1][2], { suffixLength: 260 }, "the index is a suffix range");
      ok(
        user.calls.slice(1).every((c) => c[3]),
        "the read's signal reaches the store",
      );

      // A read that joins another's request in flight still stops at its own abort.
      let release;
      const held = new Promise((r) => (release = r));
      const slowStore = {
        url: "held://x",
        async get(key) {
          if (key.endsWith("c/0/0")) await held;
          return memory.get(key);
        },
      };
      const heldArr = await open(slowStore, { path: "dtypes/uint16" });
      const first = heldArr.get([0, 0]);
      const stop = new AbortController();
      const second = heldArr.get([1, 1], { signal: stop.signal });
      await new Promise((r) => setTimeout(r, 20));
      stop.abort();
      await rejects(second, "AbortError", [/c\/0\/0/], "the joined read aborts at once");
      release();
      equal((await first).data.length, 1, "the read that started the request still gets it");

      const failing = {
        url: "mine://x",
        get: async (key) => {
          throw new Error(`disk on fire reading ${key}`);
        },
      };
      await rejects(
        open(failing, { path: "a" }),
        "StoreError",
        [/mine:\/\/x\/a\/zarr\.json/, /disk on fire/],
        "a store that throws",
      );
      const aborting = {
        get: async () => {
          throw new DOMException("stop", "AbortError");
        },
      };
      await rejects(open(aborting), "AbortError", [/zarr\.json/], "a store that aborts");
      const wrong = { get: async () => "text" };
      await rejects(
        open(wrong),
        "StoreError",
        [/not a Uint8Array/],
        "a store that resolves to a string",
      );
      await rejects(open({ nothing: 1 }), "TypeError", [/get\(key, options\)/], "not a store");
    },
  },
  {
    name: "ZipStore reads zipped hierarchies with range requests: zarr-python 2 and 3, Info-ZIP ZIP64, deflated members",
    async run(ctx) {
      const { open, ZipStore, FetchStore, MemoryStore } = ctx.zarr;
      const raw = await expected(ctx, "v2.expected.json", "v2_consolidated.zarr", "images/raw");
      for (const name of ["v2_zarr2.zip", "v2_zip64_deflated.zip"]) {
        await ctx.clearLog();
        const zip = new ZipStore(`${ctx.base}/zip/${name}`);
        const root = await open(zip);
        equal(root.zarrFormat, 2, `${name}: a v2 root`);
        deepEqual(
          root.children.map((c) => c.name),
          ["images", "table"],
          `${name}: its .zmetadata`,
        );
        const arr = await root.open("images/raw");
        sameBytes(bytesOf((await arr.get()).data), raw, `${name}: values`);
        const log = await ctx.requests();
        ok(
          log.every((r) => r.range),
          `${name}: only range requests (${log.map((r) => r.range)})`,
        );
        equal(log[0].range, "bytes=-65557", `${name}: first the end of the archive`);
      }
      const zip = new ZipStore(new FetchStore(`${ctx.base}/zip`), "v3_sharded_zarr3.zip");
      const arr = await open(zip, { path: "sharding/index_end" });
      const whole = await expected(ctx, "v3.expected.json", "codecs.zarr", "sharding/index_end");
      sameBytes(bytesOf((await arr.get()).data), whole, "a sharded array in a ZIP");
      const cold = await open(zip, { path: "sharding/index_start" });
      const want = new Uint16Array(
        (await expected(ctx, "v3.expected.json", "codecs.zarr", "sharding/index_start")).buffer,
      );
      await ctx.clearLog();
      const one = await cold.get([3, 50]);
      equal(one.data[0], want[3 * 60 + 50], "one element of a zipped shard");
      const log = await ctx.requests();
      ok(
        log.length <= 3 && log.every((r) => /^bytes=\d+-\d+$/.test(r.range)),
        `the shard's header, index and inner chunk as spans: ${log.map((r) => r.range)}`,
      );

      const memory = new MemoryStore([["data.zip", await ctx.bytes("zip/v3_deflated_zarr3.zip")]]);
      const deflated = await open(new ZipStore(memory, "data.zip"), { path: "sharding/nested" });
      sameBytes(
        bytesOf((await deflated.get()).data),
        await expected(ctx, "v3.expected.json", "codecs.zarr", "sharding/nested"),
        "a deflated ZIP in memory",
      );
      await rejects(
        open(new ZipStore(`${ctx.base}/zip/none.zip`)),
        "NotFoundError",
        [/no ZIP file at .*zip\/none\.zip/],
        "no archive",
      );
      // One caller's abort while the directory is read does not fail another caller's open().
      const shared = new ZipStore(`${ctx.origin}/__slow/100/tests/fixtures/zip/v2_zarr2.zip`);
      const gone = new AbortController();
      const aborted = open(shared, { signal: gone.signal });
      const kept = open(shared, { path: "table" });
      gone.abort();
      await rejects(aborted, "AbortError", [], "the aborted open");
      equal((await kept).path, "table", "the other open goes on");
      await rejects(
        open(new ZipStore(`${ctx.base}/v3.zarr/zarr.json`)),
        "StoreError",
        [/not a readable ZIP file/],
        "not an archive",
      );
      await rejects(
        open(zip, { path: "nothing" }),
        "NotFoundError",
        [/v3_sharded_zarr3\.zip#nothing\/zarr\.json/],
        "a missing node names the archive and the member",
      );
    },
  },
];
