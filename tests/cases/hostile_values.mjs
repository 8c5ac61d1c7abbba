// JavaScript values that misbehave (getters that throw, revoked Proxies, Proxies whose traps throw,
// objects that only look like typed arrays) are an error of their own call: the module is not
// reset, a bystander's read goes on, and nodes opened before stay usable. Also: requests that no
// retry can help fail at once, with a message that says what to do; an iterate() over 2^40 chunks
// is refused before it lists them. Shared by Node and headless Chromium like read.mjs.
import { equal, ok, rejects } from "../support/check.mjs";

/** A read of another array that must be exact after each hostile call: the module lived on. */
async function bystander(_ctx, arr, what) {
  const { data } = await arr.get([0, null]);
  ok(data.length > 0, `${what}: the bystander read`);
}

const throwing = () => {
  throw new Error("a getter that throws");
};

export const hostileValueCases = [
  {
    name: "hostile values: selections, coordinates, out, limits and store answers that throw are errors of their call only; no reset",
    async run(ctx) {
      const { open } = ctx.zarr;
      const url = `${ctx.base}/v3.zarr/dtypes/uint16`;
      const arr = await open(url);
      const other = await open(`${ctx.base}/v3.zarr/dtypes/uint8`);
      const rank = arr.shape.length;

      const getterSelection = [null];
      Object.defineProperty(getterSelection, 0, { get: throwing });
      await rejects(arr.get(getterSelection), "SelectionError", [/a getter that throws/], "getter");
      await bystander(ctx, other, "getter");

      const revocable = Proxy.revocable([null], {});
      revocable.revoke();
      await rejects(arr.get(revocable.proxy), "SelectionError", [/revoked/i], "revoked Proxy");
      await bystander(ctx, other, "revoked Proxy");

      const badLength = new Proxy([null], {
        get: (t, k) => (k === "length" ? throwing() : t[k]),
      });
      await rejects(arr.get(badLength), "SelectionError", [/a getter that throws/], "length");
      const badKeys = [
        new Proxy(
          { start: 0 },
          {
            ownKeys: throwing,
          },
        ),
      ];
      await rejects(arr.get(badKeys), "SelectionError", [/a getter that throws/], "ownKeys");
      await bystander(ctx, other, "Proxies");

      // chunkExtent() throws synchronously (it is not async); iterate() rejects.
      const coords = Array(rank).fill(0);
      Object.defineProperty(coords, 0, { get: throwing });
      let thrown = null;
      try {
        arr.chunkExtent(coords);
      } catch (err) {
        thrown = err;
      }
      equal(thrown?.name, "SelectionError", `chunkExtent: ${thrown?.message}`);
      await rejects(arr.getChunk(coords), "SelectionError", [/a getter that throws/], "getChunk");
      await rejects(
        arr.iterate(getterSelection).next(),
        "SelectionError",
        [/a getter that throws/],
        "iterate",
      );
      await bystander(ctx, other, "coordinates");

      // `out` that only looks like a Uint16Array (its prototype, an own length).
      const size = arr.shape.reduce((a, b) => a * b, 1);
      const fake = Object.create(Uint16Array.prototype, { length: { value: size } });
      await rejects(
        arr.get(null, { out: fake }),
        "TypeError",
        [/out must be a typed array, not an object \(Uint16Array\)/],
        "out",
      );
      await bystander(ctx, other, "out");
      // A real one still works, a subclass too.
      class Sub extends Uint16Array {}
      const out = new Sub(size);
      const written = await arr.get(null, { out });
      ok(written.data === out, "out: the caller's array");

      await rejects(
        open(url, { limits: new Proxy({}, { ownKeys: throwing }) }),
        "TypeError",
        [/limits/, /a getter that throws/],
        "limits",
      );
      await bystander(ctx, other, "limits");

      // Stores whose answers are not bytes, or throw when read.
      const rel = "v3.zarr/dtypes/uint16";
      const asProxy = {
        get: async (key) =>
          key.endsWith("zarr.json")
            ? ctx.bytes(`${rel}/${key}`)
            : new Proxy(await ctx.bytes(`${rel}/${key}`), {}),
      };
      const proxied = await open(asProxy);
      await rejects(proxied.get(null), "StoreError", [/not a Uint8Array/], "a Proxy of bytes");
      class Liar extends Uint8Array {
        get length() {
          return throwing();
        }
      }
      const liar = {
        get: async (key) => new Liar(await ctx.bytes(`${rel}/${key}`)),
      };
      const lied = await open(liar);
      const read = await lied.get(null); // its bytes, by the array's own slots
      equal(read.data.length, size, "a subclass whose length throws is read by its bytes");
      await bystander(ctx, other, "stores");

      // The nodes opened before are still usable: nothing was reset.
      equal((await arr.get(null)).data.length, size, "the first node reads");
      arr.free();
      other.free();
    },
  },
  {
    name: "hostile values: iterate() over 2^40 one-element chunks is refused before listing them; get() after a reset rejects, never throws",
    async run(ctx) {
      const { open, MemoryStore, memoryUsage } = ctx.zarr;
      const meta = new TextEncoder().encode(
        JSON.stringify({
          zarr_format: 3,
          node_type: "array",
          shape: [2 ** 40],
          data_type: "uint8",
          chunk_grid: { name: "regular", configuration: { chunk_shape: [1] } },
          chunk_key_encoding: { name: "default" },
          fill_value: 0,
          codecs: [{ name: "bytes" }],
        }),
      );
      const arr = await open(new MemoryStore([["zarr.json", meta]]));
      const before = memoryUsage().wasmBytes;
      await rejects(
        arr.iterate(null).next(),
        "SelectionError",
        [/more than 1048576 chunks/],
        "iterate",
      );
      ok(
        memoryUsage().wasmBytes - before < 16 << 20,
        `no memory taken (${before} -> ${memoryUsage().wasmBytes})`,
      );
      arr.free();

      // A node read through workers, opened before a reset: get() opens it again and reads.
      const pooled = await open(`${ctx.base}/v3.zarr/dtypes/uint16`, { workers: 2 });
      await rejects(ctx.zarr.__trapForTests(0), "ResetError", [/reset/], "the trap");
      let reading;
      try {
        reading = pooled.get(null);
      } catch (err) {
        throw new Error(`get() threw synchronously after a reset: ${err.name}: ${err.message}`);
      }
      const { data } = await reading;
      equal(data.length, pooled.shape[0] * pooled.shape[1], "a pooled node reads after a reset");
      pooled.free();
    },
  },
  {
    name: "requests no retry can help fail at once and say what to do: a file: URL, a relative URL in Node, a refused connection (Node names it; a browser names it or CORS, with the page's origin), a server of another origin without CORS rules",
    async run(ctx) {
      const { open } = ctx.zarr;
      const inNode = typeof globalThis.document === "undefined";
      let t0 = performance.now();
      if (inNode) {
        await rejects(
          open("file:///tmp/x.zarr"),
          "StoreError",
          [/file: URLs/, /FileSystemStore/],
          "file:",
        );
        await rejects(open("data/x.zarr"), "StoreError", [/relative URL/], "a relative URL");
      }
      // Port 2 on loopback: nothing listens there; the connection is refused. Node names the
      // cause; a browser cannot tell it from a CORS refusal, and the message names both, with
      // the page's origin.
      t0 = performance.now();
      const page = globalThis.location?.origin;
      await rejects(
        open("http://127.0.0.1:2/x.zarr"),
        "StoreError",
        inNode
          ? [/127\.0\.0\.1:2 refused the connection/, /is the server running/]
          : [/127\.0\.0\.1:2/, /could not be reached/, /CORS/, new RegExp(`page's origin ${page}`)],
        "refused",
      );
      const took = performance.now() - t0;
      // Three retries with backoff would take 700 ms and more.
      ok(took < 500, `refused: failed after ${took.toFixed(0)} ms, without retries`);
      if (inNode) return;
      // A server of another origin without CORS rules: the browser gives the page no answer, and
      // the message says what the server's answers need.
      const other = ctx.origin.replace("127.0.0.1", "localhost");
      await rejects(
        open(`${other}/__nocors/tests/fixtures/v3.zarr/dtypes/uint8`, { kind: "array" }),
        "StoreError",
        [/refused this page's origin/, /Access-Control-Allow-Origin/, /could not be reached/],
        "no CORS",
      );
    },
  },
];
