// `zarr-wasm convert` against zarrs_reencode (zarrs_tools, Rust with libzstd and c-blosc, built
// natively by cargo into target/zarrs-tools the first time) on the same source, to the same
// chunks, shards and codecs, from one local directory to another. Each run starts the command
// cold (a new process: Node and its module's compile included for zarr-wasm), alternating, and
// the medians are reported with each one's peak memory (maximum resident set, /usr/bin/time).
// `node bench/convert.mjs [runs]`; bench.mjs appends its table to the results.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";

const repo = new URL("..", import.meta.url).pathname;
const ZARRS_TOOLS = "0.8.1";
const zarrsReencode = `${repo}target/zarrs-tools/bin/zarrs_reencode`;
const out = `${repo}target/bench-convert`;

/** zarrs_reencode, built once (about 4 minutes on 2 cores). */
function ensureZarrsTools() {
  if (existsSync(zarrsReencode)) return;
  console.error(
    `[bench] building zarrs_tools ${ZARRS_TOOLS} (zarrs_reencode) into target/zarrs-tools`,
  );
  execFileSync(
    "cargo",
    [
      "install",
      "zarrs_tools",
      "--version",
      ZARRS_TOOLS,
      "--locked",
      "--root",
      `${repo}target/zarrs-tools`,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
}

/** The conversions measured: a source array, and the chunks, shards and codec each tool writes. */
export const CONVERSIONS = [
  {
    name: "level 0, zstd 3",
    source: "www/data/large.ome.zarr/0",
    shape: [2, 3, 8192, 8192],
    chunks: [256, 256],
    shards: [4096, 4096],
    codec: "zstd:3",
    zarrs: [{ name: "zstd", configuration: { level: 3, checksum: false } }],
  },
  {
    name: "level 1, Blosc lz4 shuffle",
    source: "www/data/large.ome.zarr/1",
    shape: [2, 3, 4096, 4096],
    chunks: [512, 512],
    shards: [4096, 4096],
    codec: "blosc:lz4:5",
    zarrs: [
      {
        name: "blosc",
        configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 2, blocksize: 0 },
      },
    ],
  },
];

/** The full shape of `shape`'s last dimensions given as `last` (one element elsewhere). */
const full = (shape, last) => [...shape.slice(0, shape.length - last.length).map(() => 1), ...last];

/** Runs `command` under /usr/bin/time where it exists: seconds and peak memory (MiB). */
function timed(command, args, env = {}) {
  const hasTime = existsSync("/usr/bin/time");
  const options = { encoding: "utf8", env: { ...process.env, ...env } };
  const started = performance.now();
  const run = hasTime
    ? spawnSync("/usr/bin/time", ["-f", "%M", command, ...args], options)
    : spawnSync(command, args, options);
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${run.stderr}`);
  const kb = hasTime ? Number(run.stderr.trim().split("\n").pop()) : Number.NaN;
  return { seconds, mib: kb / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Each conversion by each tool, `runs` times, alternating; medians. */
export function convertBench(runs = 3) {
  ensureZarrsTools();
  const rows = [];
  for (const c of CONVERSIONS) {
    const source = `${repo}${c.source}`;
    const zarrsArgs = (dst) => [
      "--chunk-shape",
      full(c.shape, c.chunks).join(","),
      "--shard-shape",
      full(c.shape, c.shards).join(","),
      "--bytes-to-bytes-codecs",
      JSON.stringify(c.zarrs),
      source,
      dst,
    ];
    const zarrWasm = (dst, extra) =>
      timed(process.execPath, [
        `${repo}pkg/cli.js`,
        "convert",
        source,
        dst,
        "--chunks",
        c.chunks.join(","),
        "--shards",
        c.shards.join(","),
        "--codec",
        c.codec,
        ...extra,
        "--no-verify",
        "--quiet",
      ]);
    const tools = {
      zarrs_reencode: (dst) => timed(zarrsReencode, zarrsArgs(dst)),
      // One thread, as zarr-wasm's module runs its pipeline on one.
      "zarrs_reencode, 1 thread": (dst) =>
        timed(zarrsReencode, zarrsArgs(dst), { RAYON_NUM_THREADS: "1" }),
      "zarr-wasm convert": (dst) => zarrWasm(dst, []),
      "zarr-wasm convert --workers 2": (dst) => zarrWasm(dst, ["--workers", "2"]),
    };
    const seen = Object.fromEntries(Object.keys(tools).map((t) => [t, []]));
    for (let i = 0; i < runs; i++)
      for (const [tool, run] of Object.entries(tools)) {
        const dst = `${out}/${tool.replace(/\W+/g, "_")}.zarr`;
        rmSync(dst, { recursive: true, force: true });
        seen[tool].push(run(dst));
      }
    const bytes = c.shape.reduce((a, b) => a * b, 2);
    const base = median(seen.zarrs_reencode.map((r) => r.seconds));
    for (const [tool, results] of Object.entries(seen)) {
      const seconds = median(results.map((r) => r.seconds));
      rows.push({
        conversion: c.name,
        source: c.source,
        mib: bytes / 2 ** 20,
        tool,
        seconds,
        mibPerS: bytes / 2 ** 20 / seconds,
        peakMiB: median(results.map((r) => r.mib)),
        ratio: seconds / base,
      });
    }
  }
  rmSync(out, { recursive: true, force: true });
  return { rows, runs };
}

/** The table of `convertBench`'s rows. */
export function convertTable({ rows, runs }) {
  return [
    `| conversion | tool | time (median of ${runs}) | MiB/s | peak memory | time / zarrs_reencode's |`,
    "|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.conversion} (${r.mib.toFixed(0)} MiB) | ${r.tool} | ${r.seconds.toFixed(2)} s | ${r.mibPerS.toFixed(0)} | ${Number.isNaN(r.peakMiB) ? "?" : `${r.peakMiB.toFixed(0)} MiB`} | ${r.ratio.toFixed(2)}x |`,
    ),
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(convertTable(convertBench(Number(process.argv[2] ?? 3))));
}
