// Zarr written by GDAL 3.6.2's Zarr driver (tests/fixtures/gdal/, scripts/make_gdal_fixtures.sh),
// shared by Node and headless Chromium: every array read value by value against what GDAL reads
// back (Blosc's "shuffle" as GDAL writes it, XZ streams with the delta filter, zlib and gzip),
// numcodecs' LZMA with delta filters by zarr-python (XZ and raw), and GDAL 3.6's FORMAT=ZARR_V3,
// the pre-2023 v3 draft, refused by name wherever it is opened.
import { deepEqual, equal, ok, rejects } from "../support/check.mjs";
import { wholeArrayCase } from "./fixtures.mjs";

const MANIFEST = "gdal.expected.json";

async function manifest(ctx) {
  return (await fetch(`${ctx.base}/${MANIFEST}`)).json();
}

/** Reads each entry whole and compares it with the writer's values, naming the array on failure. */
async function readAll(ctx, entries, what) {
  ok(entries.length > 0, `${what}: no arrays in ${MANIFEST}`);
  for (const entry of entries) {
    try {
      await wholeArrayCase(entry).run(ctx);
    } catch (e) {
      e.message = `${entry.store}/${entry.path} (${entry.writer}): ${e.message}`;
      throw e;
    }
  }
}

const inStore = (log, store) =>
  log.map((r) => `${r.method} ${r.path.replace(`/tests/fixtures/${store}/`, "")}`);

/** A store that serves `base` but hands `damage(bytes)` for `key`. */
function damaging(base, key, damage) {
  return {
    url: base,
    async get(k, { signal } = {}) {
      const r = await fetch(`${base}/${k}`, { signal });
      if (r.status === 404) return undefined;
      const bytes = new Uint8Array(await r.arrayBuffer());
      return k === key ? damage(bytes) : bytes;
    },
  };
}

export const gdalCases = [
  {
    name: 'gdal: Blosc with "shuffle" as GDAL 3.6.2 writes BLOSC_SHUFFLE ("BIT", 1 for BYTE, "2", "NONE", "NOSHUFFLE"; lz4, zstd, blosclz, zlib) reads every array value by value as GDAL reads it',
    async run(ctx) {
      const m = await manifest(ctx);
      const entries = m.arrays.filter((e) => e.compressor?.id === "blosc");
      deepEqual(
        [...new Set(entries.map((e) => JSON.stringify(e.compressor.shuffle)))].sort(),
        ['"2"', '"BIT"', '"NONE"', '"NOSHUFFLE"', "1"],
        "the shuffles GDAL wrote",
      );
      await readAll(ctx, entries, "Blosc");
    },
  },
  {
    name: "gdal: COMPRESS=LZMA (XZ streams with the delta filter, LZMA_DELTA 1 and 4, no check) reads every array value by value as GDAL reads it; a damaged block header is a CodecError naming the chunk, the codec and the CRC32",
    async run(ctx) {
      const m = await manifest(ctx);
      const entries = m.arrays.filter((e) => e.compressor?.id === "lzma");
      deepEqual(
        [...new Set(entries.map((e) => e.compressor.delta))].sort(),
        [1, 4],
        "the delta distances GDAL wrote",
      );
      await readAll(ctx, entries, "LZMA");
      const { open } = ctx.zarr;
      const base = `${ctx.base}/gdal/uint16_lzma.zarr`;
      const flip = (b) => {
        const c = b.slice();
        c[14] ^= 0x01; // inside the first block header
        return c;
      };
      const arr = await open(damaging(base, "Band1/0.1", flip), { path: "Band1" });
      await rejects(
        arr.getChunk([0, 1]),
        "CodecError",
        [/numcodecs\.lzma/, /Band1\/0\.1/, /block 1: the CRC32 of the block header/],
        "a damaged XZ block header",
      );
    },
  },
  {
    name: "gdal: COMPRESS=ZLIB with FORMAT=ZARR_V2 and COMPRESS=GZIP, with GDAL's X and Y arrays, read every array value by value as GDAL reads it",
    async run(ctx) {
      const m = await manifest(ctx);
      const entries = m.arrays.filter((e) => ["zlib", "gzip"].includes(e.compressor?.id));
      equal(entries.length, 4, "Band1 and Band2 of each");
      await readAll(ctx, entries, "zlib and gzip");
      // GDAL's coordinate arrays (of every georeferenced store): uncompressed float64, no fill
      // value.
      const xy = m.arrays.filter((e) => ["X", "Y"].includes(e.path));
      ok(xy.length === 8 && xy.every((e) => e.compressor === null), "X and Y arrays");
      await readAll(ctx, xy, "X and Y");
    },
  },
  {
    name: "gdal: numcodecs' LZMA with filters=[delta, lzma2] by zarr-python 3.1.6, as XZ (format 1, the chain in the stream) and raw (format 3, the chain in the configuration; two deltas in v2), reads value by value",
    async run(ctx) {
      const m = await manifest(ctx);
      const entries = m.arrays.filter((e) => e.writer.startsWith("zarr-python"));
      deepEqual(
        entries.map((e) => e.path),
        ["raw_delta", "xz_delta", "raw_deltas"],
        "the zarr-python arrays",
      );
      await readAll(ctx, entries, "numcodecs' LZMA filters");
    },
  },
  {
    name: "gdal: GDAL 3.6's FORMAT=ZARR_V3 (the pre-2023 v3 draft) is an UnsupportedError naming the draft and how to convert it, opened at the root, below it (one more request: the root's zarr.json), with zarrFormat: 3 and consolidated: true",
    async run(ctx) {
      const { open, UnsupportedError } = ctx.zarr;
      const m = await manifest(ctx);
      equal(m.refused.length, 2, "the root and Band1");
      for (const entry of m.refused) {
        const url = `${ctx.base}/${entry.store}`;
        await ctx.clearLog();
        const error = await rejects(
          open(url, { path: entry.path }),
          entry.error,
          [
            ...entry.message.map(
              (part) => new RegExp(part.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")),
            ),
            /Convert it with GDAL: gdal_translate -of ZARR -co FORMAT=ZARR_V2/,
          ],
          `${entry.store} at "${entry.path}"`,
        );
        ok(error instanceof UnsupportedError, "an UnsupportedError");
        const log = inStore(await ctx.requests(), entry.store);
        if (entry.path === "") {
          deepEqual(log, ["GET zarr.json"], "the root: its zarr.json alone");
        } else {
          equal(
            log.filter((r) => r === "GET zarr.json").length,
            1,
            `the root's zarr.json once: ${log}`,
          );
          ok(log.includes(`GET ${entry.path}/zarr.json`), `the node's own zarr.json first: ${log}`);
          equal(log[log.length - 1], "GET zarr.json", `the root's zarr.json last: ${log}`);
        }
        for (const options of [{ zarrFormat: 3 }, { consolidated: true }]) {
          await rejects(
            open(url, { path: entry.path, ...options }),
            "UnsupportedError",
            [/the pre-2023 Zarr v3 draft/],
            `${entry.store} at "${entry.path}" with ${JSON.stringify(options)}`,
          );
        }
      }
      // A node missing below a v2 root GDAL wrote is still not found.
      await rejects(
        open(`${ctx.base}/gdal/uint16_lzma.zarr`, { path: "Band3" }),
        "NotFoundError",
        [/Band3/],
        "a missing band",
      );
    },
  },
];
