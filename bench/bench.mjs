// `npm run bench`: whole-array reads of the same 2048x2048 uint16 image (bench/data/bench.zarr,
// written by zarr-python with numcodecs' C codecs) with zarr-wasm and with zarrita.js +
// numcodecs.js, in this one Node process, over the same local HTTP server, one array per codec.
// Runs alternate between the readers; medians are reported, with decoded MB/s and the speed
// ratio. Both readers' results must be identical. The native ceiling is the same Rust decoders
// compiled for this machine (examples/decode_bench.rs: decoding only, no HTTP). The table goes to
// stdout and to bench/RESULTS.md.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync, readFileSync, readdirSync, statSync } from "node:fs";
import { WRITE_CODECS, writeBench, writeTable } from "./write.mjs";
import { convertBench, convertTable } from "./convert.mjs";
import { gzipSync } from "node:zlib";
import os from "node:os";
import * as zw from "zarr-wasm";
import * as zarrita from "zarrita";
import * as plugin from "zarr-wasm/zarrita";
import * as esbuild from "esbuild";
import { startServer } from "../tests/support/server.mjs";
import { launchChromium } from "../tests/support/browser.mjs";
import { measureOffThread } from "./offthread.js";
import { measureCodecs, median, serveFromMemory } from "./codecs.js";
import { measureTiles, VIEW } from "./tiles.js";
import { measureViv } from "./viv.js";
import { codecPagesTable, coldTable, firstViewTable, measureColdPages } from "./cold.mjs";
import { sizeBudgets } from "./budgets.mjs";

const WARMUP = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CODECS = JSON.parse(readFileSync(new URL("data/bench.json", import.meta.url)));

const here = new URL(".", import.meta.url).pathname;
const repo = new URL("..", import.meta.url).pathname;
const serverMounts = {
  "/": `${here}/data`,
  "/pkg/": `${repo}/pkg`,
  "/scalar-pkg/": `${repo}/target/scalar-pkg`,
  "/bench/": here,
  "/bench-build/": `${repo}/target/bench`,
};
const server = await startServer({ mounts: serverMounts });
const url = `${server.url}/bench.zarr`;
// The same files over HTTP/2 (TLS with a self-signed certificate, which Chromium is told to accept),
// as CDNs serve them.
const tls = selfSignedCertificate();
const h2Server = await startServer({ mounts: serverMounts, tls });

/** A certificate for 127.0.0.1, made once with openssl into target/bench/tls/. */
function selfSignedCertificate() {
  const dir = `${repo}/target/bench/tls`;
  if (!existsSync(`${dir}/cert.pem`)) {
    mkdirSync(dir, { recursive: true });
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "3650",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        `${dir}/key.pem`,
        "-out",
        `${dir}/cert.pem`,
      ],
      { stdio: "ignore" },
    );
  }
  return { key: readFileSync(`${dir}/key.pem`), cert: readFileSync(`${dir}/cert.pem`) };
}

/**
 * Opens `origin` + `path` in a fresh headless Chromium and, in order, calls each of `calls`
 * ([name of a function the page defines on window, its options]); the results, and the browser's
 * version.
 */
async function inChromium(origin, path, calls) {
  const browser = await launchChromium({
    args: origin.startsWith("https:") ? ["--ignore-certificate-errors"] : [],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`${origin}${path}`);
    page.setDefaultTimeout(0);
    const results = [];
    for (const [name, options] of calls) {
      await page.waitForFunction((f) => window[f] !== undefined, name, { timeout: 30000 });
      results.push(await page.evaluate(([f, o]) => window[f](o), [name, options]));
    }
    return { results, version: browser.version() };
  } finally {
    await browser.close();
  }
}

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

// The package built without simd128 (npm run bench builds it: scripts/build.sh --scalar).
const zwScalar = await import(`${repo}/target/scalar-pkg/index.js`);
const measure = (base, scalar) =>
  measureCodecs({ zw, zarrita, scalar, plugin, base, codecs: CODECS, runs: RUNS, warmup: WARMUP });

// Tile streaming from a cold start (bench/tiles.js), in Node over HTTP/1.1; in Chromium below, over
// HTTP/1.1 and HTTP/2.
const TILE_RUNS = Math.max(3, Math.round(RUNS / 3));
const slowTiles = (origin) => `${origin}/__slow/20/tiles.zarr`;
const tileResults = {
  node: await measureTiles({
    zw,
    zarrita,
    origin: server.url,
    base: slowTiles(server.url),
    runs: TILE_RUNS,
  }),
};

// What the viewport needs at the least: zarr.json, the four shard indexes, and exactly the inner
// chunks it covers (their sizes read from the indexes: 8 x 8 entries of (offset, nbytes) + crc32c).
function bytesNeeded() {
  const dir = `${here}/data/tiles.zarr/image`;
  let total = statSync(`${dir}/zarr.json`).size;
  const inner = 128,
    perShard = 8,
    indexLen = perShard * perShard * 16 + 4;
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

// Off the main thread: whole reads over HTTP in Node and in headless Chromium, on the main thread and
// through pools of one and two workers, with the longest main-thread stall of each read.
const OFF_THREAD = {
  paths: ["zstd", "gzip", "blosc_lz4_shuffle"],
  runs: RUNS,
  warmup: WARMUP,
  workers: [1, 2],
};
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
  bundle: true,
  format: "esm",
  platform: "browser",
  outfile: `${repo}/target/bench/zarrita.js`,
  logLevel: "error",
});
// The write table in Chromium (bench/write.html: bench/write-core.js, as in Node).
const writesChromium = (
  await inChromium(server.url, "/bench/write.html", [["measureWrites", RUNS]])
).results[0];
const offThreadChromium = await inChromium(server.url, "/bench/offthread.html", [
  ["measure", OFF_THREAD],
  ["measure", { ...OFF_THREAD, keys: offThreadKeys }],
]).then(({ results: [http, memory] }) => ({ http, memory }));

// The cold tile viewport in Chromium, over HTTP/1.1 (at most six connections to a server) and over
// HTTP/2 (one connection, every request a stream of it).
for (const [protocol, origin] of [
  ["HTTP/1.1", server.url],
  ["HTTP/2", h2Server.url],
]) {
  const {
    results: [tiles],
  } = await inChromium(origin, "/bench/codecs.html", [
    ["measureTiles", { base: slowTiles(origin), runs: TILE_RUNS }],
  ]);
  tileResults[`Chromium, ${protocol}`] = tiles;
}

// The viewer itself (www/, built by webpack) in headless Chromium, on its sample (the large one where
// scripts/start.sh made it): a tour of views from a cold page, once with each reader, the server
// adding 20 ms to every request. Requests and bytes are the server's counts.
const VIEWER_RUNS = Math.max(3, Math.round(RUNS / 3));
const viewerMounts = { "/": `${repo}/www/dist`, "/data/": `${repo}/www/data` };
const viewerSample = existsSync(`${repo}/www/data/large.ome.zarr/zarr.json`)
  ? "large.ome.zarr"
  : "sample.ome.zarr";
async function viewerTour(browser, viewerServer, reader) {
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
  if (log.length === 0)
    throw new Error(`the viewer tour on ${viewerSample} made no requests with ${reader}`);
  return {
    ms,
    tiles: stats.tiles,
    requests: log.length,
    bytes: log.reduce((a, r) => a + (r.bytes ?? 0), 0),
  };
}
// Over HTTP/1.1 and HTTP/2 (see the tiles above).
const viewerResults = {};
for (const [protocol, tlsOptions] of [
  ["HTTP/1.1", null],
  ["HTTP/2", tls],
]) {
  const results = { "zarr-wasm": [], "zarrita.js": [] };
  const viewerServer = await startServer({ mounts: viewerMounts, tls: tlsOptions });
  const browser = await launchChromium({ args: tlsOptions ? ["--ignore-certificate-errors"] : [] });
  try {
    for (let i = 0; i < VIEWER_RUNS; i++) {
      for (const reader of i % 2 ? ["zarrita.js", "zarr-wasm"] : ["zarr-wasm", "zarrita.js"]) {
        results[reader].push(await viewerTour(browser, viewerServer, reader));
      }
    }
  } finally {
    await browser.close();
    await viewerServer.close();
  }
  viewerResults[protocol] = results;
}

// The first view on a cold page under DevTools throttling (bench/cold.mjs): 7 pages per reader
// and scenario, as issue 33 measured it.
const COLD_RUNS = 7;
const coldPages = await measureColdPages({ repo, runs: COLD_RUNS });

// Viv's layer loading the sample through zarr-wasm/viv and through Viv's own loader (bench/viv.js).
const vivResults = await measureViv(repo, VIEWER_RUNS);

const fromMemory = await measure(`${MEMORY}/bench.zarr`, zwScalar);

// The same reads from memory in headless Chromium (bench/codecs.html: the page fetches the files
// from the server first, then answers fetch from them).
const chromiumFromMemory = await inChromium(server.url, "/bench/codecs.html", [
  [
    "measureCodecs",
    {
      keys: [...memoryFiles.keys()].map((k) => k.slice("/bench.zarr/".length)),
      memory: MEMORY,
      codecs: CODECS,
      runs: RUNS,
      warmup: WARMUP,
    },
  ],
]).then(({ results: [rows], version }) => ({ rows, version }));

// The floor under every read from memory: fetching the raw array's 64 chunks and taking their
// bytes, with no decoding and no assembly, as both readers must.
async function fetchFloorMs() {
  const keys = [...memoryFiles.keys()].filter((k) => k.startsWith("/bench.zarr/raw/c/"));
  const times = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    await Promise.all(
      keys.map(async (k) => new Uint8Array(await (await fetch(`${MEMORY}${k}`)).arrayBuffer())),
    );
    if (i >= WARMUP) times.push(performance.now() - t0);
  }
  return median(times);
}
const fetchFloor = await fetchFloorMs();
const rows = await measure(url);
await server.close();
await h2Server.close();

// The ceiling: the same decoders compiled natively (release build of examples/decode_bench.rs).
const native = JSON.parse(
  execFileSync(
    "cargo",
    [
      "run",
      "--quiet",
      "--release",
      "--example",
      "decode_bench",
      "--",
      `${here}/data/bench.zarr`,
      String(RUNS),
    ],
    {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    },
  ),
);

// The C ceiling: the same chunks decoded natively by the C libraries numcodecs wraps (libzstd,
// zlib, liblz4, c-blosc on one thread), through numcodecs in Python (bench/native_c.py), in the
// scale tests' environment (.venv-scale, scripts/scale-requirements.txt).
function nativeC() {
  const python = `${repo}/.venv-scale/bin/python`;
  if (!existsSync(python)) execFileSync("python3", ["-m", "venv", `${repo}/.venv-scale`]);
  execFileSync(
    python,
    ["-m", "pip", "install", "-q", "-r", `${repo}/scripts/scale-requirements.txt`],
    {
      stdio: "inherit",
    },
  );
  return JSON.parse(
    execFileSync(python, [`${here}/native_c.py`, `${here}/data/bench.zarr`, String(RUNS)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
}
const nativeCeiling = nativeC();

// The platform's own inflate, alone: every chunk of the gzip array through DecompressionStream.
async function decompressionStreamMs() {
  const dir = `${here}/data/bench.zarr/gzip/c`;
  const files = readdirSync(dir, { recursive: true })
    .map((f) => `${dir}/${f}`)
    .filter((f) => statSync(f).isFile());
  const chunks = files.map((f) => readFileSync(f));
  const once = () =>
    Promise.all(
      chunks.map((c) =>
        new Response(
          new Blob([c]).stream().pipeThrough(new DecompressionStream("gzip")),
        ).arrayBuffer(),
      ),
    );
  const times = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    await once();
    if (i >= WARMUP) times.push(performance.now() - t0);
  }
  return median(times);
}
const platformGzipMs = await decompressionStreamMs();

// Wall-time targets for the tiles and the viewer tour: at most this fraction of zarrita.js's time.
const WALL_TARGET = 0.6;
const wallVersus = (ms, peerMs) => {
  const r = ms / peerMs;
  return `${r.toFixed(2)}x: ${r <= WALL_TARGET ? "met" : "**missed**"}`;
};
const mbps = (bytes, ms) => (bytes / 1e6 / (ms / 1e3)).toFixed(0);
// The speed targets: the uncompressed path 3x the peer, every codec 2x (the decoding issue).
const target = (path) => (path === "raw" ? 3 : 2);
// A codec table: header, rule and rows; with the scalar build's columns where it was read.
const table = (rows) => {
  const scalar = rows[0].ms["zarr-wasm scalar"] !== undefined;
  const scalarHeader = scalar
    ? " zarr-wasm scalar build (no simd128) median | simd128 gain (scalar time / simd128 time) |"
    : "";
  return [
    `| codec | zarr-wasm median | zarrita.js median | zarr-wasm MB/s | zarrita.js MB/s | speed ratio (zarrita time / zarr-wasm time) | target ratio | zarrita.js + zarr-wasm codecs median | its speed-up over zarrita.js alone |${scalarHeader} native Rust decode only, MB/s |`,
    `|---|---|---|---|---|---|---|---|---|${scalar ? "---|---|" : ""}---|`,
    ...rows.map(({ path, label, bytes, ms }) => {
      const n = native[path];
      const ratio = ms["zarrita.js"] / ms["zarr-wasm"];
      const goal = `${target(path)}x: ${ratio >= target(path) ? "met" : "**missed**"}`;
      const scalarCells = scalar
        ? ` ${ms["zarr-wasm scalar"].toFixed(1)} ms | ${(ms["zarr-wasm scalar"] / ms["zarr-wasm"]).toFixed(2)}x |`
        : "";
      const plugged = ms["zarrita.js + zarr-wasm codecs"];
      const pluggedCells = `${plugged.toFixed(1)} ms | ${(ms["zarrita.js"] / plugged).toFixed(2)}x |`;
      return `| ${label} | ${ms["zarr-wasm"].toFixed(1)} ms | ${ms["zarrita.js"].toFixed(1)} ms | ${mbps(bytes, ms["zarr-wasm"])} | ${mbps(bytes, ms["zarrita.js"])} | ${ratio.toFixed(2)}x | ${goal} | ${pluggedCells}${scalarCells} ${n ? mbps(n.bytes, n.ms) : "n/a"} |`;
    }),
  ];
};

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

// zarr-wasm's decoding (the decode share of a read, from the timings above) against the C libraries
// and against the same Rust natively, on the same chunks: how close the wasm decoders come to the
// ceiling, per codec.
const ceilingTable = () => [
  "| codec | C library | C, native MB/s | Rust, native MB/s | zarr-wasm decode in Node, MB/s | its fraction of C | zarr-wasm decode in Chromium, MB/s | its fraction of C |",
  "|---|---|---|---|---|---|---|---|",
  ...fromMemory
    .filter(({ path }) => nativeCeiling[path])
    .map(({ path, label, bytes, split }) => {
      const c = nativeCeiling[path];
      const cSpeed = c.bytes / c.ms;
      const chromium = chromiumFromMemory.rows.find((r) => r.path === path);
      const wasmCells = (t) =>
        `${mbps(bytes, t.decode)} | ${(bytes / t.decode / cSpeed).toFixed(2)}`;
      return `| ${label} | ${c.library} | ${mbps(c.bytes, c.ms)} | ${native[path] ? mbps(native[path].bytes, native[path].ms) : "n/a"} | ${wasmCells(split)} | ${wasmCells(chromium.split)} |`;
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
  return {
    f,
    js: js.length,
    jsGz: gzipSync(js, { level: 9 }).length,
    wasm: wasmBytes.length,
    wasmGz: gzipSync(wasmBytes, { level: 9 }).length,
  };
});
const sum = (k) => peerModules.reduce((a, m) => a + m[k], 0);
// The full build (every codec, Zarr Vectors, kerchunk references, Icechunk), which a page loads
// instead at its first openVectors(), open() of a ReferenceStore or IcechunkStore, or array with a
// codec only it has (pkg/load.js).
const wasmFull = readFileSync(new URL("../pkg/zarr_wasm_full_bg.wasm", import.meta.url));
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
// The second module (numcodecs' lzma, bz2, pcodec and zfpy, the registry's zfp), loaded only for
// arrays that need it.
const wasmExtra = readFileSync(new URL("../pkg/zarr_wasm_extra_bg.wasm", import.meta.url));
// The size budgets (bench/budgets.mjs): the test command fails on a module over its budget too
// (tests/node/size.test.mjs); here they are reported beside the sizes.
const SIZE_BUDGET = sizeBudgets();
const overBudget = SIZE_BUDGET.filter((b) => b.bytes > b.budget);
const budgetLines = SIZE_BUDGET.map(
  ({ what, bytes, budget }) =>
    `| ${what} | ${kib(bytes)} | ${kib(budget)} | ${bytes <= budget ? "within" : "**over**"} |`,
);
const sizeLines = [
  `| zarr-wasm (\`zarr_wasm_bg.wasm\`: the core codecs and those images use, metadata, selections, stores; what a page that reads Zarr loads) | ${kib(wasm.length)} | ${kib(gz(wasm))} |`,
  `| zarr-wasm, full build (\`zarr_wasm_full_bg.wasm\`: the same, numcodecs' filters and the registry's array codecs, Zarr Vectors, kerchunk references, Icechunk and ZIP archives; loaded instead where a page needs one of them) | ${kib(wasmFull.length)} | ${kib(gz(wasmFull))} |`,
  `| zarr-wasm's second module (\`zarr_wasm_extra_bg.wasm\`: lzma, bz2, pcodec, zfpy and zfp; fetched only for arrays that use them) | ${kib(wasmExtra.length)} | ${kib(gz(wasmExtra))} |`,
  ...peerModules.map(
    (m) =>
      `| numcodecs.js ${numcodecsVersion} \`${m.f}\` (wasm inside: ${kib(m.wasm)}, gzipped ${kib(m.wasmGz)}) | ${kib(m.js)} | ${kib(m.jsGz)} |`,
  ),
  `| numcodecs.js blosc + zstd + lz4 together | ${kib(sum("js"))} | ${kib(sum("jsGz"))} |`,
];

function offThreadTable(rows) {
  const mainMs = Object.fromEntries(
    rows.filter((r) => r.reader === "zarr-wasm, main thread").map((r) => [r.path, r.ms]),
  );
  return [
    "| array | reader | wall time (median) | longest main-thread stall, median (worst) | wall time vs zarr-wasm on the main thread |",
    "|---|---|---|---|---|",
    ...rows.map((r) =>
      r.ms === null
        ? `| ${r.path} | ${r.reader} | | ${r.stall.toFixed(1)} ms | |`
        : `| ${r.path} | ${r.reader} | ${r.ms.toFixed(1)} ms | ${r.stall.toFixed(1)} ms (${r.worstStall.toFixed(1)} ms) | ${(mainMs[r.path] / r.ms).toFixed(2)}x |`,
    ),
  ];
}

// Writes of the same image from memory (bench/write.mjs), in Node; and the C encoders' speed on
// the same chunks, natively through numcodecs (bench/native_write.py, c-blosc on one thread).
const writes = await writeBench(RUNS);
writes.native = JSON.parse(
  execFileSync(
    `${repo}/.venv-scale/bin/python`,
    [
      `${here}/native_write.py`,
      `${here}/data/bench.zarr/raw`,
      JSON.stringify(WRITE_CODECS),
      String(RUNS),
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  ),
);

// `zarr-wasm convert` against zarrs_reencode on the large sample's levels (bench/convert.mjs).
const conversions = convertBench(3);

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
  ...table(fromMemory),
  "",
  `Fetching the raw array's 64 chunks from memory and taking their bytes, with no decoding or assembly, takes`,
  `${fetchFloor.toFixed(1)} ms: the floor under both readers' uncompressed read.`,
  "",
  `The same reads from memory in headless Chromium ${chromiumFromMemory.version} (the page loads the files first and answers`,
  "fetch from them; zarrita.js inflates gzip and zlib with Chromium's DecompressionStream):",
  "",
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
  "The ceiling: the decode share above (timed inside the read, decoding straight into the result) against the C",
  "libraries that numcodecs wraps, decoding the same chunks natively, one call per chunk into a new buffer,",
  `on this CPU through numcodecs ${Object.values(nativeCeiling)[0].numcodecs} in Python (\`bench/native_c.py\`; c-blosc on one thread; medians of ${RUNS}),`,
  "and against zarr-wasm's own Rust codec pipeline compiled natively (`examples/decode_bench.rs`, also a call per chunk into",
  "a new buffer, through the whole pipeline). A fraction of 1 would be C's speed:",
  "",
  ...ceilingTable(),
  "",
  "The same reads over HTTP in Node (the test server on 127.0.0.1; transfer included):",
  "",
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
  `indexes and data), per run; times are medians of ${TILE_RUNS} cold runs per reader, alternating. The target: at most`,
  `${WALL_TARGET}x zarrita.js's wall time. The network floor is three round trips (metadata, shard index, data) of at least 20 ms.`,
  "",
  `At the least the viewport needs ${(needed / 1e6).toFixed(3)} MB: zarr.json, four shard indexes and the 48 inner chunks it covers.`,
  "",
  `| where | reader | requests | of them HEAD | bytes received | open (metadata), median | wall time (median) | vs zarrita.js (target at most ${WALL_TARGET}x) |`,
  "|---|---|---|---|---|---|---|---|",
  ...Object.entries(tileResults).flatMap(([where, { profile, ...byReader }]) =>
    Object.entries(byReader).map(
      ([name, r]) =>
        `| ${where} | ${name} | ${r.requests} | ${r.heads} | ${(r.bytes / 1e6).toFixed(3)} MB | ${r.openMs.toFixed(0)} ms | ${r.ms.toFixed(0)} ms | ${name === "zarr-wasm" ? wallVersus(r.ms, byReader["zarrita.js"].ms) : ""} |`,
    ),
  ),
  "",
  "Where zarr-wasm's cold viewport goes, against the network's floor of three round trips of 20 ms (one more cold run",
  "with the module's timings on; compiling the module is a page's first step, measured apart from the runs above):",
  "",
  "| where | compile the module | open: metadata (floor 20 ms) | tiles: shard indexes and data (floor 40 ms) | of which decoding | assembling | copying out |",
  "|---|---|---|---|---|---|---|",
  ...Object.entries(tileResults).map(
    ([where, { profile: p }]) =>
      `| ${where} | ${p.compileMs.toFixed(1)} ms | ${p.openMs.toFixed(0)} ms | ${p.tilesMs.toFixed(0)} ms | ${p.decode.toFixed(1)} ms | ${p.assemble.toFixed(1)} ms | ${p.copyOut.toFixed(1)} ms |`,
  ),
  "",
  "## The viewer",
  "",
  `The viewer (\`www/\`, webpack build) in headless Chromium on \`www/data/${viewerSample}\`, from a cold page: five views`,
  `one after the other (zooming in on an organoid at 31 %, 63 % and 63 % of full resolution, then out to 16 % and in`,
  `to 100 % elsewhere), each until its tiles are drawn; the server adds 20 ms to every request, over HTTP/1.1 and over`,
  `HTTP/2 (TLS). zarr-wasm reads in the viewer's worker pool (one worker on this machine), zarrita.js on the main thread.`,
  `Requests and bytes are the server's counts for the tour; ${VIEWER_RUNS} runs per reader, alternating; medians.`,
  "",
  `| protocol | reader | tiles | requests | bytes received | tour time (median) | vs zarrita.js (target at most ${WALL_TARGET}x) |`,
  "|---|---|---|---|---|---|---|",
  ...Object.entries(viewerResults).flatMap(([protocol, byReader]) =>
    Object.entries(byReader).map(([name, runs]) => {
      const ms = median(runs.map((r) => r.ms));
      const peer = median(byReader["zarrita.js"].map((r) => r.ms));
      return `| ${protocol} | ${name} | ${runs[0].tiles} | ${median(runs.map((r) => r.requests))} | ${(median(runs.map((r) => r.bytes)) / 1e6).toFixed(2)} MB | ${ms.toFixed(0)} ms | ${name === "zarr-wasm" ? wallVersus(ms, peer) : ""} |`;
    }),
  ),
  "",
  "## The first view on a cold page",
  "",
  `A page that imports the reader, opens the sharded zstd image of \`bench/data/tiles.zarr\` and asks for the twelve`,
  `tiles of the viewport above at once (\`bench/cold/\`), in headless Chromium ${coldPages.version} with DevTools throttling`,
  `(20 Mbit/s down, 10 up, 40 ms latency) and the cache disabled, a fresh browser context per page; ${COLD_RUNS} pages per reader`,
  "and scenario, alternating; medians. Times are from navigation start: the code's download and compile are in them.",
  "The server gzips code and metadata (level 9), as a CDN does. Both readers are bundled as a viewer's production build",
  "has them (esbuild, minified, code splitting: numcodecs.js's codecs and zarr-wasm's glue are chunks loaded on first",
  "use; zarr-wasm's WebAssembly beside its bundle). Cross origin: the page on localhost, the data on 127.0.0.1 (a browser keeps six",
  "connections per host, so the page's code and the data no longer share them). Targets (issue 33): all 12 tiles in at",
  "most 0.6x zarrita's time, the first in at most 0.8x; through WorkerPool no slower than on the main thread.",
  '"Shard indexes in": when the last shard index a page read had arrived; "first data request": when its first',
  "request for chunk data left. Neither reader can ask for data before it has the indexes, and from the first data",
  "request on, the twelve tiles' 1.15 MB take at least 460 ms at 20 Mbit/s: the all-12 time of a reader that asked for",
  "its data the moment its indexes were in is at least their sum.",
  "",
  ...coldTable(coldPages),
  "",
  "The code a page downloads for each codec (issue 33's target: less than zarrita.js's page with numcodecs.js's codec",
  "for it): the same page, unthrottled, once per reader, reading the same twelve tiles of an array of",
  "`bench/data/bench.zarr`. zarr-wasm's page loads the same module whatever the codec; zarrita.js reads gzip and zlib with",
  "the browser's `DecompressionStream` (no code of its own) and loads numcodecs.js's lz4, zstd or Blosc when a chunk needs it.",
  "",
  ...codecPagesTable(coldPages),
  "",
  "### The first view of an OME-Zarr image",
  "",
  "The data published today (issue 50): the same 2048 x 2048 image written by ome-zarr-py with levels down to 64 x 64",
  "(`scripts/make_cold_images.py`), on Zarr v2 and v3, unsharded and sharded. Each page opens the image's group, reads its",
  "multiscales, opens the lowest and the finest level, reads the lowest whole (first pixels), then asks at once for a",
  "1024 x 768 view of the finest as twelve 256 x 256 tiles on the chunk grid (whole view). Same conditions as above;",
  `${COLD_RUNS} pages per reader, alternating; medians. Targets: no row slower than zarrita.js; where zarrita.js downloads a`,
  "codec (Blosc, lz4, zstd) first pixels at most 0.8x and the whole view at most 0.7x. Requests before the first chunk's:",
  "the metadata requests the server saw before the first request for chunk data (404s among them).",
  "",
  ...firstViewTable(coldPages),
  "",
  "## Viv",
  "",
  `Viv 0.21's MultiscaleImageLayer (deck.gl 9.2, WebGL by SwiftShader) in headless Chromium ${vivResults.version}, drawing`,
  "`www/data/sample.ome.zarr` (2 x 2 x 1024 x 1024 uint16, 1024 x 1024 shards of 128 x 128 zstd chunks) at full resolution",
  "through zarr-wasm/viv and through Viv's own loader (`loadOmeZarr`, zarrita 0.5.4): from a cold page, a 640 x 480 view",
  "(30 tiles), then another view of 30 new tiles on the warm page; every pixel of each view is checked against the",
  `sample's formula before it counts. The server adds 20 ms to every request; ${VIEWER_RUNS} cold pages per loader, alternating;`,
  "medians. Requests and bytes are the server's counts for the image. Aborts: a pan away from tiles in flight (the",
  "server adding 300 ms), and the requests the server saw closed.",
  "",
  "| loader | open | first view | requests (HEAD) | bytes | second view | requests | pan: tiles aborted, requests closed |",
  "|---|---|---|---|---|---|---|---|",
  ...vivResults.rows.map(
    (r) =>
      `| ${r.name} | ${r.openMs.toFixed(0)} ms | ${r.ms.toFixed(0)} ms | ${r.requests} (${r.heads}) | ${(r.bytes / 1024).toFixed(0)} KiB | ${r.warmMs.toFixed(0)} ms | ${r.warmRequests} | ${r.aborts.signalsAborted}, ${r.aborts.closed} |`,
  ),
  "",
  `An app's download, gzip -9 (esbuild, minified): Viv's layers and deck.gl alone ${(vivResults.sizes.bare.initial / 1024).toFixed(1)} KiB;`,
  `with zarr-wasm/viv ${(vivResults.sizes.ours.initial / 1024).toFixed(1)} KiB of JavaScript and the ${(vivResults.sizes.wasm / 1024).toFixed(1)} KiB module; with Viv's loader`,
  `${(vivResults.sizes.viv.initial / 1024).toFixed(1)} KiB, and numcodecs.js' zstd (${(vivResults.sizes.viv.zstd / 1024).toFixed(1)} KiB) at the first zstd chunk.`,
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
  "The zarr-wasm modules are built as the package is (`scripts/build.sh`: wasm-bindgen, then binaryen's `wasm-opt` stripping names).",
  "",
  "| module | raw | gzip -9 |",
  "|---|---|---|",
  ...sizeLines,
  "",
  "The size budget (gzipped; the benchmark fails when a module is over it):",
  "",
  "| zarr-wasm module | gzip -9 | budget | |",
  "|---|---|---|---|",
  ...budgetLines,
  "",
  "## Writes",
  "",
  "The same image written from memory into an in-memory store (bench/write-core.js), zarr-wasm against zarrita.js 0.7.5",
  "(numcodecs.js: C compiled by emscripten), warm, alternating, medians; sizes are the chunks' bytes. Each zarr-wasm",
  "write is read back and checked. In Node, then in headless Chromium; the C column is the native C encoders on the",
  "same chunks (bench/native_write.py: libzstd and c-blosc on one thread, through numcodecs in Python).",
  "",
  writeTable(writes),
  "",
  writeTable({ ...writesChromium, native: writes.native }, "Chromium"),
  "",
  "## Converting",
  "",
  "`zarr-wasm convert` against zarrs_reencode (zarrs_tools 0.8.1, Rust with libzstd and c-blosc, built natively by",
  "cargo) on the large sample's levels (Zarr v3, sharded, zstd inner chunks), from a directory to a directory, to the same",
  "chunks, shards and codecs (bench/convert.mjs). Each run is a new process (for zarr-wasm: Node, the module's compile),",
  "without `--verify`; alternating, medians; peak memory is the maximum resident set.",
  "",
  convertTable(conversions),
  "",
].join("\n");
console.log(report);
writeFileSync(new URL("RESULTS.md", import.meta.url), report);
if (overBudget.length) {
  console.error(
    `over the size budget: ${overBudget.map((b) => `${b.what} ${kib(b.bytes)} > ${kib(b.budget)}`).join("; ")}`,
  );
  process.exit(1);
}
