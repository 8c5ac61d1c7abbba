// The write benchmark's measurements, with the libraries handed in: runs the same in Node
// (bench/write.mjs) and in headless Chromium (bench/write.html). The image is the benchmark's
// 2048 x 2048 uint16 (bench/data/bench.zarr/raw, written by zarr-python), written from memory into
// an in-memory store with zarr-wasm and with zarrita.js 0.7.5 (numcodecs.js: C compiled by
// emscripten), for each codec zarrita.js can encode; chunks of 256 x 256. Runs alternate between
// the writers, warm (each writer's first write, which loads its encoders, is reported apart);
// medians. Each zarr-wasm write is read back and must equal the image. Also each codec's
// compressed size against zarrita.js's (the same C libraries zarr-python uses).

export const SIDE = 2048;
export const CHUNK = 256;

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
async function writeWasm(wasm, data, codecs) {
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
async function writeZarrita(zarrita, data, codecs) {
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

/**
 * The write table's rows: `{ name, wasm, zarrita, ratio, mbs, first, sizes }`, for the image
 * `data` written by `libs.wasm` (zarr-wasm) and `libs.zarrita`.
 */
export async function runWriteBench({ wasm, zarrita }, data, runs = 7) {
  const mb = (SIDE * SIDE * 2) / 1e6;
  const rows = [];
  // Each writer's first write loads its encoders (zarr-wasm's write build, numcodecs.js).
  const firstWasm = await writeWasm(wasm, data, WRITE_CODECS[1].codecs);
  const firstZarrita = await writeZarrita(zarrita, data, WRITE_CODECS[1].codecs);
  for (const codec of WRITE_CODECS) {
    const w = [];
    const z = [];
    let sizes;
    for (let i = 0; i < runs; i++) {
      const a = await writeWasm(wasm, data, codec.codecs);
      const b = await writeZarrita(zarrita, data, codec.codecs);
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

/**
 * The table, as Markdown; `native` (bench/native_write.py's result, where given) adds the C
 * encoders' MB/s on the same chunks and zarr-wasm's share of it.
 */
export function writeTable({ rows, first, native }, where = "Node") {
  const lines = [
    `| codec (2048 x 2048 uint16, chunks of 256 x 256, ${where}) | zarr-wasm ms | zarrita.js ms | speed-up | zarr-wasm MB/s | C MB/s (numcodecs) | of C | size: zarr-wasm / zarrita.js |`,
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const c = native?.codecs?.[r.name];
    lines.push(
      `| ${r.name} | ${r.wasm.toFixed(1)} | ${r.zarrita.toFixed(1)} | ${r.ratio.toFixed(2)}x | ${r.mbs.toFixed(0)} | ${c ? c.mbs.toFixed(0) : ""} | ${c ? (r.mbs / c.mbs).toFixed(2) : ""} | ${(r.sizes.wasm / r.sizes.zarrita).toFixed(3)} (${r.sizes.wasm} / ${r.sizes.zarrita}) |`,
    );
  }
  lines.push(
    "",
    `First write (loads the encoders), zstd: zarr-wasm ${first.wasm.toFixed(0)} ms, zarrita.js ${first.zarrita.toFixed(0)} ms.`,
  );
  if (native)
    lines.push(
      `C: numcodecs ${native.numcodecs} in Python (libzstd ${native.libraries.libzstd}, c-blosc ${native.libraries["c-blosc"]} on one thread), natively, the same chunks.`,
    );
  return lines.join("\n");
}
