// Tile streaming from a cold start: a 1024 x 768 viewport of the sharded image (1024 x 1024 shards
// of 128 x 128 zstd inner chunks) read as twelve 256 x 256 tiles at once, from a server that adds
// 20 ms to every request. Each run opens the array anew; requests and bytes are the server's log
// (its /__log endpoints). Web APIs only: runs the same in Node (bench.mjs) and in Chromium
// (codecs.html), over HTTP/1.1 or HTTP/2, whichever the server speaks.
import { median, sameBytes } from "./codecs.js";

import { VIEW } from "./viewport.js";

export { VIEW };

const openers = {
  "zarr-wasm": async (zw, _zarrita, base) => {
    const arr = await zw.open(new zw.FetchStore(base), { path: "image" });
    return (y, x) => arr.get([zw.slice(y, y + VIEW.tile), zw.slice(x, x + VIEW.tile)]);
  },
  "zarrita.js": async (_zw, zarrita, base) => {
    const arr = await zarrita.open(zarrita.root(new zarrita.FetchStore(base)).resolve("image"), {
      kind: "array",
    });
    return (y, x) =>
      zarrita.get(arr, [zarrita.slice(y, y + VIEW.tile), zarrita.slice(x, x + VIEW.tile)]);
  },
};

/** One cold viewport: open, then every tile at once; the time to open (metadata) and in all. */
async function viewport(name, { zw, zarrita, base }) {
  const t0 = performance.now();
  const read = await openers[name](zw, zarrita, base);
  const opened = performance.now() - t0;
  const jobs = [];
  for (let r = 0; r < VIEW.rows; r++) {
    for (let c = 0; c < VIEW.cols; c++)
      jobs.push(read(VIEW.y + r * VIEW.tile, VIEW.x + c * VIEW.tile));
  }
  const tiles = await Promise.all(jobs);
  return { ms: performance.now() - t0, openMs: opened, tiles };
}

/**
 * `runs` cold viewports per reader, alternating, from `origin` (the server: its /__log) reading
 * `base`. Per reader: median wall time and time to open, and the last run's request counts.
 * Throws if the readers' tiles differ.
 */
export async function measureTiles({ zw, zarrita, origin, base, runs }) {
  const results = { "zarr-wasm": [], "zarrita.js": [] };
  const last = {};
  for (let i = 0; i < runs; i++) {
    for (const name of i % 2 ? ["zarrita.js", "zarr-wasm"] : ["zarr-wasm", "zarrita.js"]) {
      await fetch(`${origin}/__log/clear`, { method: "POST" });
      const run = await viewport(name, { zw, zarrita, base });
      const log = await (await fetch(`${origin}/__log`)).json();
      results[name].push({
        ms: run.ms,
        openMs: run.openMs,
        requests: log.length,
        heads: log.filter((r) => r.method === "HEAD").length,
        bytes: log.reduce((a, r) => a + (r.bytes ?? 0), 0),
      });
      last[name] = run.tiles;
    }
  }
  const [a, b] = Object.values(last);
  if (!a.every((t, i) => sameBytes(t.data, b[i].data)))
    throw new Error("tiles: the readers disagree");
  const profile = await profileTiles({ zw, zarrita, origin, base });
  const byReader = Object.fromEntries(
    Object.entries(results).map(([name, rs]) => [
      name,
      {
        runs: rs.length,
        ms: median(rs.map((r) => r.ms)),
        openMs: median(rs.map((r) => r.openMs)),
        requests: rs[rs.length - 1].requests,
        heads: rs[rs.length - 1].heads,
        bytes: rs[rs.length - 1].bytes,
      },
    ]),
  );
  return { ...byReader, profile };
}

/**
 * Where a cold zarr-wasm viewport's time goes: compiling the module (the page's first step;
 * median of three compiles of the package's wasm, fetched from `origin` first), opening the array
 * (metadata), then the tiles (shard indexes and data: the network's two further round trips), and
 * within them decoding, assembling and copying out (one more cold run, timings on).
 */
async function profileTiles({ zw, zarrita, origin, base }) {
  const wasm = await (await fetch(`${origin}/pkg/zarr_wasm_bg.wasm`)).arrayBuffer();
  const compiles = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await WebAssembly.compile(wasm);
    compiles.push(performance.now() - t0);
  }
  await zw.__timingsForBench(true);
  const run = await viewport("zarr-wasm", { zw, zarrita, base });
  const { decode, assemble, copyOut } = await zw.__timingsForBench(false);
  return {
    compileMs: median(compiles),
    openMs: run.openMs,
    tilesMs: run.ms - run.openMs,
    decode,
    assemble,
    copyOut,
  };
}
