// `npm run bench`: whole-array reads of the same 2048x2048 uint16 image (bench/data/bench.zarr,
// written by zarr-python) with zarr-wasm and with zarrita.js, in this one Node process, over the
// same local HTTP server, one array per codec. Runs alternate between the readers; medians are
// reported, with decoded MB/s and the speed ratio. Both readers' results must be identical.
// The table goes to stdout and to bench/RESULTS.md.
import { writeFileSync, readFileSync } from "node:fs";
import os from "node:os";
import * as zw from "zarr-wasm";
import * as zarrita from "zarrita";
import { startServer } from "../tests/support/server.mjs";

const WARMUP = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CODECS = [
  ["raw", "bytes only (no compression)"],
  ["gzip", "gzip level 5"],
];

const here = new URL(".", import.meta.url).pathname;
const server = await startServer({ mounts: { "/": `${here}/data` } });
const url = `${server.url}/bench.zarr`;

const readers = {
  "zarr-wasm": async (path) => {
    const arr = await zw.open(url, { path });
    return () => arr.get();
  },
  "zarrita.js": async (path) => {
    const arr = await zarrita.open(zarrita.root(new zarrita.FetchStore(url)).resolve(path), { kind: "array" });
    return () => zarrita.get(arr);
  },
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function sameBytes(a, b) {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

const rows = [];
for (const [path, label] of CODECS) {
  const read = {};
  for (const [name, make] of Object.entries(readers)) read[name] = await make(path);
  const first = {};
  for (const name of Object.keys(read)) first[name] = await read[name]();
  const [a, b] = Object.values(first);
  if (!sameBytes(a.data, b.data) || a.shape.join() !== b.shape.join()) {
    console.error(`${path}: the readers disagree`);
    process.exit(1);
  }
  const times = Object.fromEntries(Object.keys(read).map((n) => [n, []]));
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const name of i % 2 ? Object.keys(read).reverse() : Object.keys(read)) {
      const t0 = performance.now();
      await read[name]();
      if (i >= WARMUP) times[name].push(performance.now() - t0);
    }
  }
  const bytes = a.data.byteLength;
  const m = Object.fromEntries(Object.entries(times).map(([n, t]) => [n, median(t)]));
  rows.push({ label, bytes, ms: m });
}
await server.close();

const mbps = (bytes, ms) => (bytes / 1e6 / (ms / 1e3)).toFixed(0);
const header = "| codec | zarr-wasm median | zarrita.js median | zarr-wasm MB/s | zarrita.js MB/s | speed ratio (zarrita time / zarr-wasm time) |";
const lines = rows.map(({ label, bytes, ms }) =>
  `| ${label} | ${ms["zarr-wasm"].toFixed(1)} ms | ${ms["zarrita.js"].toFixed(1)} ms | ${mbps(bytes, ms["zarr-wasm"])} | ${mbps(bytes, ms["zarrita.js"])} | ${(ms["zarrita.js"] / ms["zarr-wasm"]).toFixed(2)}x |`);
const wasmSize = readFileSync(new URL("../pkg/zarr_wasm_bg.wasm", import.meta.url)).length;
const report = [
  "# Benchmark: whole-array reads, zarr-wasm vs zarrita.js",
  "",
  `Image: 2048 x 2048 uint16 (${(rows[0].bytes / 2 ** 20).toFixed(0)} MiB decoded), 256 x 256 chunks, written by zarr-python;`,
  `served over HTTP on 127.0.0.1 by the test server. Node ${process.versions.node}, ${os.cpus()[0]?.model ?? "unknown CPU"},`,
  `${os.cpus().length} cores. ${RUNS} timed runs per reader after ${WARMUP} warm-up runs, alternating readers; medians.`,
  `zarrita.js ${JSON.parse(readFileSync(new URL("../node_modules/zarrita/package.json", import.meta.url))).version} decodes gzip with the platform's DecompressionStream (native zlib).`,
  `zarr-wasm module: ${(wasmSize / 1024).toFixed(0)} KiB. Generated ${new Date().toISOString().slice(0, 10)} by \`npm run bench\`.`,
  "",
  header,
  "|---|---|---|---|---|---|",
  ...lines,
  "",
].join("\n");
console.log(report);
writeFileSync(new URL("RESULTS.md", import.meta.url), report);
