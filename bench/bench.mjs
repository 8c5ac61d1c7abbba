// `npm run bench`: whole-array reads of the same 2048x2048 uint16 image (bench/data/bench.zarr,
// written by zarr-python with numcodecs' C codecs) with zarr-wasm and with zarrita.js +
// numcodecs.js, in this one Node process, over the same local HTTP server, one array per codec.
// Runs alternate between the readers; medians are reported, with decoded MB/s and the speed
// ratio. Both readers' results must be identical. The native ceiling is the same Rust decoders
// compiled for this machine (examples/decode_bench.rs: decoding only, no HTTP). The table goes to
// stdout and to bench/RESULTS.md.
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync, readFileSync, readdirSync, statSync } from "node:fs";
import { gzipSync } from "node:zlib";
import os from "node:os";
import * as zw from "zarr-wasm";
import * as zarrita from "zarrita";
import * as esbuild from "esbuild";
import { startServer } from "../tests/support/server.mjs";
import { launchChromium } from "../tests/support/browser.mjs";
import { measureOffThread } from "./offthread.js";
import { measureCodecs, median, sameBytes, serveFromMemory } from "./codecs.js";

const WARMUP = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CODECS = JSON.parse(readFileSync(new URL("data/bench.json", import.meta.url)));

const here = new URL(".", import.meta.url).pathname;
const repo = new URL("..", import.meta.url).pathname;
const server = await startServer({
  mounts: { "/": `${here}/data`, "/pkg/": `${repo}/pkg`, "/bench/": here, "/bench-build/": `${repo}/target/bench` },
});
const url = `${server.url}/bench.zarr`;

// Reads "from memory": `fetch` answers requests for this origin from the files, loaded once, so
// that a read costs what the reader itself does (decoding, assembly, copies) and not HTTP
// (bench/codecs.js; the Chromium run does the same in its page).
const MEMORY = "http://memory.invalid";
const memoryFiles = new Map();
for (const f of readdirSync(`${here}/data/bench.zarr`, { recursive: true })) {
  const file = `${here}/data/bench.zarr/${f}`;
  if (statSync(file).isFile()) memoryFiles.set(`/bench.zarr/${f}`, readFileSync(file));
}
serveFromMemory(MEMORY, memoryFiles);

const measure = (base) => measureCodecs({ zw, zarrita, base, codecs: CODECS, runs: RUNS, warmup: WARMUP });

// Tile streaming from a cold start: a 1024 x 768 viewport of the sharded image (1024 x 1024 shards of
// 128 x 128 zstd inner chunks) read as twelve 256 x 256 tiles at once, the server adding 20 ms to
// every request. Each run opens the array anew; requests and bytes come from the server's log.
const VIEW = { y: 640, x: 512, rows: 3, cols: 4, tile: 256 };
const tileReaders = {
  "zarr-wasm": async (base) => {
    const arr = await zw.open(new zw.FetchStore(base), { path: "image" });
    return (y, x) => arr.get([zw.slice(y, y + VIEW.tile), zw.slice(x, x + VIEW.tile)]);
  },
  "zarrita.js": async (base) => {
    const arr = await zarrita.open(zarrita.root(new zarrita.FetchStore(base)).resolve("image"), { kind: "array" });
    return (y, x) => zarrita.get(arr, [zarrita.slice(y, y + VIEW.tile), zarrita.slice(x, x + VIEW.tile)]);
  },
};

async function streamTiles(name) {
  const base = `${server.url}/__slow/20/tiles.zarr`;
  const runs = [];
  let tiles;
  for (let i = 0; i < Math.max(3, Math.round(RUNS / 3)); i++) {
    server.clearLog();
    const t0 = performance.now();
    const read = await tileReaders[name](base);
    const jobs = [];
    for (let r = 0; r < VIEW.rows; r++) {
      for (let c = 0; c < VIEW.cols; c++) jobs.push(read(VIEW.y + r * VIEW.tile, VIEW.x + c * VIEW.tile));
    }
    tiles = await Promise.all(jobs);
    const ms = performance.now() - t0;
    const log = [...server.log];
    runs.push({
      ms,
      requests: log.length,
      heads: log.filter((r) => r.method === "HEAD").length,
      bytes: log.reduce((a, r) => a + (r.bytes ?? 0), 0),
    });
  }
  return { runs, tiles };
}

// What the viewport needs at the least: zarr.json, the four shard indexes, and exactly the inner
// chunks it covers (their sizes read from the indexes: 8 x 8 entries of (offset, nbytes) + crc32c).
function bytesNeeded() {
  const dir = `${here}/data/tiles.zarr/image`;
  let total = statSync(`${dir}/zarr.json`).size;
  const inner = 128, perShard = 8, indexLen = perShard * perShard * 16 + 4;
  const rows = [VIEW.y / inner, (VIEW.y + VIEW.rows * VIEW.tile) / inner];
  const cols = [VIEW.x / inner, (VIEW.x + VIEW.cols * VIEW.tile) / inner];
  const shards = new Set();
  for (let r = rows[0]; r < rows[1]; r++) {
    for (let c = cols[0]; c < cols[1]; c++) {
      const key = `${Math.floor(r / perShard)}/${Math.floor(c / perShard)}`;
      const shard = readFileSync(`${dir}/c/${key}`);
      const index = shard.subarray(shard.length - indexLen);
      if (!shards.has(key)) total += indexLen;
      shards.add(key);
      const entry = ((r % perShard) * perShard + (c % perShard)) * 16;
      total += Number(index.readBigUInt64LE(entry + 8));
    }
  }
  return total;
}
const needed = bytesNeeded();

const tileResults = {};
for (const name of Object.keys(tileReaders)) tileResults[name] = await streamTiles(name);
{
  const [a, b] = Object.values(tileResults).map((r) => r.tiles);
  if (!a.every((t, i) => sameBytes(t.data, b[i].data))) {
    console.error("tiles: the readers disagree");
    process.exit(1);
  }
}

// Off the main thread: whole reads over HTTP in Node and in headless Chromium, on the main thread and
// through pools of one and two workers, with the longest main-thread stall of each read.
const OFF_THREAD = { paths: ["zstd", "gzip", "blosc_lz4_shuffle"], runs: RUNS, warmup: WARMUP, workers: [1, 2] };
// And from memory, where decoding is all the work: how it scales with workers.
const offThreadKeys = [...memoryFiles.keys()]
  .map((k) => k.slice("/bench.zarr/".length))
  .filter((k) => OFF_THREAD.paths.some((p) => k.startsWith(`${p}/`)) || k === "zarr.json");
const offThreadEntries = offThreadKeys.map((k) => [k, memoryFiles.get(`/bench.zarr/${k}`)]);
const offThreadNode = {
  http: await measureOffThread({ zw, zarrita, base: `${server.url}/bench.zarr`, ...OFF_THREAD }),
  memory: await measureOffThread({ zw, zarrita, entries: offThreadEntries, ...OFF_THREAD }),
};
await esbuild.build({
  stdin: { contents: 'export * from "zarrita";', resolveDir: repo },
  bundle: true, format: "esm", platform: "browser", outfile: `${repo}/target/bench/zarrita.js`, logLevel: "error",
});
const offThreadChromium = await (async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/bench/offthread.html`);
    await page.waitForFunction(() => window.measure !== undefined, null, { timeout: 30000 });
    page.setDefaultTimeout(0);
    return {
      http: await page.evaluate((options) => window.measure(options), OFF_THREAD),
      memory: await page.evaluate((options) => window.measure(options), { ...OFF_THREAD, keys: offThreadKeys }),
    };
  } finally {
    await browser.close();
  }
})();

// The viewer itself (www/, built by webpack) in headless Chromium, on its sample (the large one where
// scripts/start.sh made it): a tour of views from a cold page, once with each reader, the server
// adding 20 ms to every request. Requests and bytes are the server's counts.
const VIEWER_RUNS = Math.max(3, Math.round(RUNS / 3));
const viewerServer = await startServer({ mounts: { "/": `${repo}/www/dist`, "/data/": `${repo}/www/data` } });
const viewerSample = existsSync(`${repo}/www/data/large.ome.zarr/zarr.json`) ? "large.ome.zarr" : "sample.ome.zarr";
async function viewerTour(browser, reader) {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${viewerServer.url}/?url=${viewerServer.url}/__slow/20/data/${viewerSample}`);
  await page.waitForFunction(() => window.viewer?.state.image, null, { timeout: 60000 });
  await page.selectOption("#reader", reader); // before any tile arrives: the other reader's are dropped
  await page.evaluate(() => window.viewer.idle());
  viewerServer.log.length = 0;
  const t0 = performance.now();
  const stats = await page.evaluate(async () => {
    const side = window.viewer.state.image.shape[1];
    const views = [
      { x: side * 0.1, y: side * 0.4, scale: 2560 / side },
      { x: side * 0.15, y: side * 0.45, scale: 5120 / side },
      { x: side * 0.2, y: side * 0.45, scale: 5120 / side },
      { x: side * 0.6, y: side * 0.1, scale: 1280 / side },
      { x: side * 0.62, y: side * 0.12, scale: 8192 / side },
    ];
    for (const view of views) {
      window.viewer.setView(view);
      await window.viewer.idle();
    }
    return window.viewer.stats();
  });
  const ms = performance.now() - t0;
  const log = [...viewerServer.log];
  await page.close();
  // A tour that fetched nothing measured nothing (every view's tiles were already loaded).
  if (log.length === 0) throw new Error(`the viewer tour on ${viewerSample} made no requests with ${reader}`);
  return { ms, tiles: stats.tiles, requests: log.length, bytes: log.reduce((a, r) => a + (r.bytes ?? 0), 0) };
}
const viewerResults = { "zarr-wasm": [], "zarrita.js": [] };
{
  const browser = await launchChromium();
  try {
    for (let i = 0; i < VIEWER_RUNS; i++) {
      for (const reader of i % 2 ? ["zarrita.js", "zarr-wasm"] : ["zarr-wasm", "zarrita.js"]) viewerResults[reader].push(await viewerTour(browser, reader));
    }
  } finally {
    await browser.close();
    await viewerServer.close();
  }
}

const fromMemory = await measure(`${MEMORY}/bench.zarr`);

// The same reads from memory in headless Chromium (bench/codecs.html: the page fetches the files
// from the server first, then answers fetch from them).
const chromiumFromMemory = await (async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/bench/codecs.html`);
    await page.waitForFunction(() => window.measureCodecs !== undefined, null, { timeout: 30000 });
    page.setDefaultTimeout(0);
    const keys = [...memoryFiles.keys()].map((k) => k.slice("/bench.zarr/".length));
    const rows = await page.evaluate((options) => window.measureCodecs(options), {
      keys, memory: MEMORY, codecs: CODECS, runs: RUNS, warmup: WARMUP,
    });
    return { rows, version: browser.version() };
  } finally {
    await browser.close();
  }
})();

// The floor under every read from memory: fetching the raw array's 64 chunks and taking their
// bytes, with no decoding and no assembly, as both readers must.
async function fetchFloorMs() {
  const keys = [...memoryFiles.keys()].filter((k) => k.startsWith("/bench.zarr/raw/c/"));
  const times = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    await Promise.all(keys.map(async (k) => new Uint8Array(await (await fetch(`${MEMORY}${k}`)).arrayBuffer())));
    if (i >= WARMUP) times.push(performance.now() - t0);
  }
  return median(times);
}
const fetchFloor = await fetchFloorMs();
const rows = await measure(url);
await server.close();

// The ceiling: the same decoders compiled natively (release build of examples/decode_bench.rs).
const native = JSON.parse(
  execFileSync("cargo", ["run", "--quiet", "--release", "--example", "decode_bench", "--", `${here}/data/bench.zarr`, String(RUNS)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }),
);

// The platform's own inflate, alone: every chunk of the gzip array through DecompressionStream.
async function decompressionStreamMs() {
  const dir = `${here}/data/bench.zarr/gzip/c`;
  const files = readdirSync(dir, { recursive: true }).map((f) => `${dir}/${f}`).filter((f) => statSync(f).isFile());
  const chunks = files.map((f) => readFileSync(f));
  const once = () =>
    Promise.all(chunks.map((c) => new Response(new Blob([c]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer()));
  const times = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    await once();
    if (i >= WARMUP) times.push(performance.now() - t0);
  }
  return median(times);
}
const platformGzipMs = await decompressionStreamMs();

const mbps = (bytes, ms) => (bytes / 1e6 / (ms / 1e3)).toFixed(0);
const header =
  "| codec | zarr-wasm median | zarrita.js median | zarr-wasm MB/s | zarrita.js MB/s | speed ratio (zarrita time / zarr-wasm time) | target ratio | native Rust decode only, MB/s |";
// The speed targets: the uncompressed path 3x the peer, every codec 2x (the decoding issue).
const target = (path) => (path === "raw" ? 3 : 2);
const table = (rows) => rows.map(({ path, label, bytes, ms }) => {
  const n = native[path];
  const ratio = ms["zarrita.js"] / ms["zarr-wasm"];
  const goal = `${target(path)}x: ${ratio >= target(path) ? "met" : "**missed**"}`;
  return `| ${label} | ${ms["zarr-wasm"].toFixed(1)} ms | ${ms["zarrita.js"].toFixed(1)} ms | ${mbps(bytes, ms["zarr-wasm"])} | ${mbps(bytes, ms["zarrita.js"])} | ${ratio.toFixed(2)}x | ${goal} | ${n ? mbps(n.bytes, n.ms) : "n/a"} |`;
});

// Where zarr-wasm's time goes in the reads from memory: decoding, assembling, copying out, and the
// rest (fetching the chunks from the in-memory fetch, the JS around it, waiting).
const splitTable = (rows) => [
  "| codec | wall time (mean) | decode | assemble | copy out | fetch and the rest |",
  "|---|---|---|---|---|---|",
  ...rows.map(({ label, split: t }) => {
    const part = (x) => `${x.toFixed(1)} ms (${((100 * x) / t.wall).toFixed(0)}%)`;
    return `| ${label} | ${t.wall.toFixed(1)} ms | ${part(t.decode)} | ${part(t.assemble)} | ${part(t.copyOut)} | ${part(t.rest)} |`;
  }),
];

// Download size: our module against numcodecs.js's codec modules (wasm embedded as base64 in JS).
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
const wasm = readFileSync(new URL("../pkg/zarr_wasm_bg.wasm", import.meta.url));
const numcodecsDir = new URL("../node_modules/numcodecs/dist/", import.meta.url);
const numcodecsVersion = JSON.parse(readFileSync(new URL("../package.json", numcodecsDir))).version;
const peerModules = ["blosc.js", "zstd.js", "lz4.js"].map((f) => {
  const js = readFileSync(new URL(f, numcodecsDir));
  // The wasm binary is a base64 string literal; "AGFzbQ" is its magic number "\\0asm" in base64.
  const b64 = /(AGFzbQ[A-Za-z0-9+/=]+)/.exec(js.toString("latin1"));
  const wasmBytes = b64 ? Buffer.from(b64[1], "base64") : Buffer.alloc(0);
  return { f, js: js.length, jsGz: gzipSync(js, { level: 9 }).length, wasm: wasmBytes.length, wasmGz: gzipSync(wasmBytes, { level: 9 }).length };
});
const sum = (k) => peerModules.reduce((a, m) => a + m[k], 0);
const sizeLines = [
  `| zarr-wasm (\`zarr_wasm_bg.wasm\`: every codec, metadata, selections, HTTP) | ${kib(wasm.length)} | ${kib(gzipSync(wasm, { level: 9 }).length)} |`,
  ...peerModules.map((m) => `| numcodecs.js ${numcodecsVersion} \`${m.f}\` (wasm inside: ${kib(m.wasm)}, gzipped ${kib(m.wasmGz)}) | ${kib(m.js)} | ${kib(m.jsGz)} |`),
  `| numcodecs.js blosc + zstd + lz4 together | ${kib(sum("js"))} | ${kib(sum("jsGz"))} |`,
];

function offThreadTable(rows) {
  const mainMs = Object.fromEntries(rows.filter((r) => r.reader === "zarr-wasm, main thread").map((r) => [r.path, r.ms]));
  return [
    "| array | reader | wall time (median) | longest main-thread stall, median (worst) | wall time vs zarr-wasm on the main thread |",
    "|---|---|---|---|---|",
    ...rows.map((r) =>
      r.ms === null
        ? `| ${r.path} | ${r.reader} | | ${r.stall.toFixed(1)} ms | |`
        : `| ${r.path} | ${r.reader} | ${r.ms.toFixed(1)} ms | ${r.stall.toFixed(1)} ms (${r.worstStall.toFixed(1)} ms) | ${(mainMs[r.path] / r.ms).toFixed(2)}x |`),
  ];
}

const report = [
  "# Benchmark: whole-array reads, zarr-wasm vs zarrita.js + numcodecs.js",
  "",
  `Image: 2048 x 2048 uint16 (${(rows[0].bytes / 2 ** 20).toFixed(0)} MiB decoded), 256 x 256 chunks (64 chunks), written by`,
  `zarr-python with numcodecs' C codecs. First table: reads from memory (the global fetch answers from the files loaded in`,
  `advance, for both readers), so the time is the readers' own work. Node ${process.versions.node},`,
  `${os.cpus()[0]?.model ?? "unknown CPU"}, ${os.cpus().length} cores. ${RUNS} timed runs per reader after ${WARMUP} warm-up runs,`,
  `alternating readers; medians. zarrita.js ${JSON.parse(readFileSync(new URL("../node_modules/zarrita/package.json", import.meta.url))).version}`,
  `decodes gzip and zlib with the platform's DecompressionStream (native zlib) and blosc, zstd and lz4 with numcodecs.js`,
  `${numcodecsVersion} (C compiled by emscripten). The native column decodes the same chunks with the same Rust code compiled`,
  `for this CPU (no HTTP, no JavaScript): the ceiling. Generated ${new Date().toISOString().slice(0, 10)} by \`npm run bench\`.`,
  "",
  header,
  "|---|---|---|---|---|---|---|---|",
  ...table(fromMemory),
  "",
  `Fetching the raw array's 64 chunks from memory and taking their bytes, with no decoding or assembly, takes`,
  `${fetchFloor.toFixed(1)} ms: the floor under both readers' uncompressed read.`,
  "",
  `The same reads from memory in headless Chromium ${chromiumFromMemory.version} (the page loads the files first and answers`,
  "fetch from them; zarrita.js inflates gzip and zlib with Chromium's DecompressionStream):",
  "",
  header,
  "|---|---|---|---|---|---|---|---|",
  ...table(chromiumFromMemory.rows),
  "",
  `Where zarr-wasm's time goes in these reads, per read: the mean of ${RUNS} more reads with the module's timings on`,
  "(`__timingsForBench`): decoding chunks, assembling them into the result, copying the result out to JS, and the",
  "rest of the wall time (fetching the chunks, the JS around it, waiting). Node, then Chromium:",
  "",
  ...splitTable(fromMemory),
  "",
  ...splitTable(chromiumFromMemory.rows),
  "",
  "The same reads over HTTP in Node (the test server on 127.0.0.1; transfer included):",
  "",
  header,
  "|---|---|---|---|---|---|---|---|",
  ...table(rows),
  "",
  `The platform's DecompressionStream alone inflates the 64 gzip chunks (all at once) in ${platformGzipMs.toFixed(1)} ms`,
  `(${mbps(rows[0].bytes, platformGzipMs)} MB/s), without HTTP or assembly.`,
  "",
  "## Tile streaming (sharded, cold start)",
  "",
  `The 2048 x 2048 uint16 image stored in 1024 x 1024 shards of 128 x 128 zstd inner chunks (zarr-python);`,
  `a 1024 x 768 viewport at (${VIEW.y}, ${VIEW.x}) read as twelve 256 x 256 tiles at once, from opening the array`,
  `on; the test server adds 20 ms to every request. Requests and bytes are the server's counts (metadata,`,
  `indexes and data), per run; times are medians of ${tileResults["zarr-wasm"].runs.length} cold runs.`,
  "",
  `At the least the viewport needs ${(needed / 1e6).toFixed(3)} MB: zarr.json, four shard indexes and the 48 inner chunks it covers.`,
  "",
  "| reader | requests | of them HEAD | bytes received | wall time (median) |",
  "|---|---|---|---|---|",
  ...Object.entries(tileResults).map(([name, { runs }]) => {
    const r = runs[runs.length - 1];
    return `| ${name} | ${r.requests} | ${r.heads} | ${(r.bytes / 1e6).toFixed(3)} MB | ${median(runs.map((x) => x.ms)).toFixed(0)} ms |`;
  }),
  "",
  "## The viewer",
  "",
  `The viewer (\`www/\`, webpack build) in headless Chromium on \`www/data/${viewerSample}\`, from a cold page: five views`,
  `one after the other (zooming in on an organoid at 31 %, 63 % and 63 % of full resolution, then out to 16 % and in`,
  `to 100 % elsewhere), each until its tiles are drawn; the server adds 20 ms to every request. zarr-wasm reads in the`,
  `viewer's worker pool (one worker on this machine), zarrita.js on the main thread. Requests and bytes are the server's`,
  `counts for the tour; ${VIEWER_RUNS} runs per reader, alternating; medians.`,
  "",
  "| reader | tiles | requests | bytes received | tour time (median) |",
  "|---|---|---|---|---|",
  ...Object.entries(viewerResults).map(([name, runs]) =>
    `| ${name} | ${runs[0].tiles} | ${median(runs.map((r) => r.requests))} | ${(median(runs.map((r) => r.bytes)) / 1e6).toFixed(2)} MB | ${median(runs.map((r) => r.ms)).toFixed(0)} ms |`),
  "",
  "## Off the main thread (worker pools)",
  "",
  `Whole reads of the 2048 x 2048 uint16 image (8 MiB) over HTTP from the test server, by zarrita.js and by zarr-wasm on`,
  `the main thread, and by zarr-wasm through pools of one and two workers (\`open(url, { workers: pool })\`): the`,
  `main thread splits each read into boxes of whole chunks and only copies finished rows into place. While each`,
  `read runs, a heartbeat (a \`setTimeout(0)\` chain) measures the longest gap between its beats: the longest`,
  `main-thread task the read caused. The idle row is the heartbeat alone (the timer's own clamp). ${RUNS} timed runs`,
  `per reader after ${WARMUP} warm-up runs, alternating; medians, and the worst run in brackets. This machine has`,
  `${os.cpus().length} cores, so two workers and the main thread share them.`,
  "",
  "### In headless Chromium (Web Workers)",
  "",
  "Over HTTP (Chromium keeps at most six connections to one server, so these reads wait on the network as much as on decoding):",
  "",
  ...offThreadTable(offThreadChromium.http),
  "",
  "From memory (the page fetched the files first; zarr-wasm reads a MemoryStore, whose bytes the workers ask the main thread for, zarrita.js a Map): decoding is the work, and it scales with workers:",
  "",
  ...offThreadTable(offThreadChromium.memory),
  "",
  `### In Node ${process.versions.node} (worker_threads)`,
  "",
  "Over HTTP (the test server runs in the same process, on the main thread's event loop):",
  "",
  ...offThreadTable(offThreadNode.http),
  "",
  "From memory:",
  "",
  ...offThreadTable(offThreadNode.memory),
  "",
  "## Download size",
  "",
  "| module | raw | gzip -9 |",
  "|---|---|---|",
  ...sizeLines,
  "",
].join("\n");
console.log(report);
writeFileSync(new URL("RESULTS.md", import.meta.url), report);
