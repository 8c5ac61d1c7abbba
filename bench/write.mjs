// Writes of the benchmark's 2048 x 2048 uint16 image (bench/data/bench.zarr/raw, written by
// zarr-python) from memory into an in-memory store, with zarr-wasm and with zarrita.js 0.7.5
// (numcodecs.js: C compiled by emscripten), in this one Node process, for each codec zarrita.js can
// encode; chunks of 256 x 256. Runs alternate between the writers, warm (each writer's first write,
// which loads its encoders, is reported apart); medians. Each write is read back by zarr-wasm and
// must equal the image. Also each codec's compressed size against zarrita.js's (the same C
// libraries zarr-python uses, through numcodecs.js). `node bench/write.mjs [runs]`; bench.mjs
// appends its table to the results.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import * as wasm from "zarr-wasm";
import * as zarrita from "zarrita";

const here = new URL(".", import.meta.url).pathname;
const SIDE = 2048;
const CHUNK = 256;

/** The image: the raw array's chunks, assembled. */
function image() {
  const out = new Uint16Array(SIDE * SIDE);
  for (let ci = 0; ci < SIDE / CHUNK; ci++)
    for (let cj = 0; cj < SIDE / CHUNK; cj++) {
      const bytes = readFileSync(`${here}data/bench.zarr/raw/c/${ci}/${cj}`);
      const chunk = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
      for (let r = 0; r < CHUNK; r++)
        out.set(chunk.subarray(r * CHUNK, (r + 1) * CHUNK), (ci * CHUNK + r) * SIDE + cj * CHUNK);
    }
  return out;
}

/** The codecs both write, as zarr.json lists them after `bytes`. */
export const WRITE_CODECS = [
  { name: "raw (bytes)", codecs: [] },
  {
    name: "zstd level 3",
    codecs: [{ name: "zstd", configuration: { level: 3, checksum: false } }],
  },
  {
    name: "blosc zstd bitshuffle",
    codecs: [
      {
        name: "blosc",
        configuration: {
          cname: "zstd",
          clevel: 5,
          shuffle: "bitshuffle",
          typesize: 2,
          blocksize: 0,
        },
      },
    ],
  },
  {
    name: "blosc lz4 shuffle",
    codecs: [
      {
        name: "blosc",
        configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 2, blocksize: 0 },
      },
    ],
  },
];

const BYTES = { name: "bytes", configuration: { endian: "little" } };

/** One write of `data` with zarr-wasm: its time in ms, and the store. */
async function writeWasm(data, codecs) {
  const store = new wasm.MemoryStore();
  const arr = await wasm.create(store, {
    shape: [SIDE, SIDE],
    dtype: "uint16",
    chunks: [CHUNK, CHUNK],
    codecs: [BYTES, ...codecs],
  });
  const t0 = performance.now();
  await arr.set(null, data);
  return { ms: performance.now() - t0, store };
}

/** One write of `data` with zarrita.js: its time in ms, and the store (a Map). */
async function writeZarrita(data, codecs) {
  const store = new Map();
  const arr = await zarrita.create(zarrita.root(store).resolve("a"), {
    shape: [SIDE, SIDE],
    chunkShape: [CHUNK, CHUNK],
    dtype: "uint16",
    codecs: [BYTES, ...codecs],
  });
  const t0 = performance.now();
  await zarrita.set(arr, null, { data, shape: [SIDE, SIDE], stride: [SIDE, 1] });
  return { ms: performance.now() - t0, store };
}

/** The bytes of the chunks in `store` (keys or entries). */
function chunkBytes(entries) {
  let n = 0;
  for (const [key, value] of entries) if (/\/c\/|^c\//.test(key)) n += value.length;
  return n;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The write table's rows: `{ name, wasm, zarrita, ratio, mbs, first, sizes }`. */
export async function writeBench(runs = 7) {
  const data = image();
  const mb = (SIDE * SIDE * 2) / 1e6;
  const rows = [];
  // Each writer's first write loads its encoders (zarr-wasm's write build, numcodecs.js).
  const firstWasm = await writeWasm(data, WRITE_CODECS[1].codecs);
  const firstZarrita = await writeZarrita(data, WRITE_CODECS[1].codecs);
  for (const codec of WRITE_CODECS) {
    const w = [];
    const z = [];
    let sizes;
    for (let i = 0; i < runs; i++) {
      const a = await writeWasm(data, codec.codecs);
      const b = await writeZarrita(data, codec.codecs);
      w.push(a.ms);
      z.push(b.ms);
      if (i === 0) {
        const back = await (await wasm.open(a.store, { kind: "array" })).get();
        if (!back.data.every((v, k) => v === data[k]))
          throw new Error(`${codec.name}: zarr-wasm's write reads back other values`);
        sizes = { wasm: chunkBytes(a.store.map), zarrita: chunkBytes(b.store) };
      }
    }
    const [mw, mz] = [median(w), median(z)];
    rows.push({
      name: codec.name,
      wasm: mw,
      zarrita: mz,
      ratio: mz / mw,
      mbs: mb / (mw / 1000),
      sizes,
    });
  }
  return { rows, first: { wasm: firstWasm.ms, zarrita: firstZarrita.ms } };
}

/** The table, as Markdown. */
export function writeTable({ rows, first }) {
  const lines = [
    "| codec (2048 x 2048 uint16, chunks of 256 x 256, Node) | zarr-wasm ms | zarrita.js ms | speed-up | zarr-wasm MB/s | size: zarr-wasm / zarrita.js |",
    "|---|---|---|---|---|---|",
  ];
  for (const r of rows)
    lines.push(
      `| ${r.name} | ${r.wasm.toFixed(1)} | ${r.zarrita.toFixed(1)} | ${r.ratio.toFixed(2)}x | ${r.mbs.toFixed(0)} | ${(r.sizes.wasm / r.sizes.zarrita).toFixed(3)} (${r.sizes.wasm} / ${r.sizes.zarrita}) |`,
    );
  lines.push(
    "",
    `First write (loads the encoders), zstd: zarr-wasm ${first.wasm.toFixed(0)} ms, zarrita.js ${first.zarrita.toFixed(0)} ms.`,
  );
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await writeBench(Number(process.argv[2] ?? 7));
  console.log(writeTable(result));
}
