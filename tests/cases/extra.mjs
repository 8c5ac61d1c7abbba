// The second module (numcodecs' lzma, bz2, pcodec and zfpy, the registry's zfp, in
// zarr_wasm_extra_bg.wasm), shared by Node and headless Chromium: the fixture arrays themselves
// are read by the manifest cases (extra.expected.json, zarrs.expected.json); here, damaged
// chunks, through a user's store that damages one key, and chunks that inflate to 300 MB, which
// decode in steps as gzip's do.
import { bytesOf, equal, ok, rejects, sameBytes } from "../support/check.mjs";
import { control, watch } from "../support/watch.mjs";

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

async function expected(ctx, store, path) {
  const manifest = store.replace(/(_v2)?\.zarr$/, ".expected.json");
  const m = await (await fetch(`${ctx.base}/${manifest}`)).json();
  return ctx.bytes(m.arrays.find((e) => e.store === store && e.path === path).data);
}

const halve = (b) => b.slice(0, b.length >> 1);
const flip = (b) => {
  const c = b.slice();
  for (let i = 12; i < c.length; i += 7) c[i] ^= 0x5a;
  return c;
};

export const extraCases = [
  {
    name: "second module: truncated and corrupt lzma, bz2, pcodec, zfpy and zfp chunks are CodecErrors naming the chunk and codec; the other chunks and later reads still decode",
    async run(ctx) {
      const { open } = ctx.zarr;
      for (const [store, path, key, codec, damage] of [
        ["extra.zarr", "lzma/xz", "c/0/0", "numcodecs.lzma", halve],
        ["extra.zarr", "lzma/alone", "c/1", "numcodecs.lzma", flip],
        ["extra.zarr", "bz2/small", "c/0/1", "numcodecs.bz2", halve],
        ["extra.zarr", "bz2/blocks", "c/0/0", "numcodecs.bz2", flip],
        ["extra.zarr", "pcodec/int32", "c/1/0", "numcodecs.pcodec", halve],
        ["extra.zarr", "pcodec/float64", "c/0/0", "numcodecs.pcodec", flip],
        ["extra.zarr", "zfpy/float32_accuracy", "c/0/1", "numcodecs.zfpy", halve],
        ["extra.zarr", "zfpy/int64_4d", "c/0/0/0/0", "numcodecs.zfpy", (b) => b.slice(0, 16)],
        ["zarrs.zarr", "zfp/float32_rate_2d", "c/0/1", "zfp", halve],
        ["zarrs.zarr", "zfp/uint16_reversible_4d", "c/0/0/0/0", "zfp", halve],
        ["zarrs.zarr", "zfp/int64_precision_2d", "c/0/0", "zfp", (b) => b.slice(0, 8)],
      ]) {
        const base = `${ctx.base}/${store}`;
        const damaged = damaging(base, `${path}/${key}`, damage);
        const arr = await open(damaged, { path });
        await rejects(
          arr.getChunk(key.split("/").slice(1).map(Number)),
          "CodecError",
          [new RegExp(codec.replace(".", "\\.")), new RegExp(`${path}/${key}`)],
          `${path}/${key}`,
        );
        // The same array, read whole from an intact store: every value as zarr-python reads it.
        const whole = await (await open(base, { path })).get();
        sameBytes(
          bytesOf(whole.data),
          await expected(ctx, store, path),
          `${path} after the damage`,
        );
      }
    },
  },
  {
    name: "second module: bz2, xz and lzma chunks of a string array that inflate to 300 MB decode in steps: the event loop never waits 100 ms more than a control's longest wait, the read is a CodecError at maxDecodedChunkBytes, and an abort 100 ms in settles within 100 ms of it",
    async run(ctx) {
      const { open, MemoryStore } = ctx.zarr;
      // Python's bz2 and lzma wrote them (scripts/make_bombs.py): zeros, 300,000,000 of them in
      // one bzip2 stream and in the alone format; 1 MiB in an XZ stream, 300 of which follow
      // each other here.
      const xz = await ctx.bytes("bombs/zeros_1mib.xz");
      const xzBomb = new Uint8Array(xz.length * 300);
      for (let i = 0; i < 300; i++) xzBomb.set(xz, i * xz.length);
      const bombs = [
        ["numcodecs.bz2", { level: 9 }, await ctx.bytes("bombs/zeros_300mb.bz2")],
        ["numcodecs.lzma", { format: 1 }, xzBomb],
        ["numcodecs.lzma", { format: 2 }, await ctx.bytes("bombs/zeros_300mb.lzma")],
      ];
      // The machine's own waits (a loaded machine, a collector's pause) are not the reader's.
      const calm = await control(300);
      for (const [codec, configuration, chunk] of bombs) {
        const what = `${codec} ${JSON.stringify(configuration)}`;
        const meta = {
          zarr_format: 3,
          node_type: "array",
          shape: [1],
          data_type: "string",
          chunk_grid: { name: "regular", configuration: { chunk_shape: [1] } },
          chunk_key_encoding: { name: "default" },
          fill_value: "",
          codecs: [{ name: "vlen-utf8" }, { name: codec, configuration }],
        };
        const store = new MemoryStore([
          ["zarr.json", new TextEncoder().encode(JSON.stringify(meta))],
          ["c/0", chunk],
        ]);
        const arr = await open(store);
        const read = await watch(() => arr.get().catch((error) => ({ error })));
        const { error } = read.value;
        equal(error?.name, "CodecError", `${what}: ${error?.message}`);
        ok(
          error.message.includes(codec) && /268435456/.test(error.message),
          `${what}: ${error.message}`,
        );
        console.log(
          `second module bomb: ${what} (${chunk.length} bytes): ${read.took.toFixed(0)} ms to the limit, ${read.ticks} timer turns, longest wait ${read.worst.toFixed(0)} ms (control: ${calm.worst.toFixed(0)} ms)`,
        );
        ok(
          read.worst <= 100 + calm.worst,
          `${what}: the event loop waited ${read.worst.toFixed(0)} ms at most (the control ${calm.worst.toFixed(0)})`,
        );
        // An abort 100 ms into the decode.
        const controller = new AbortController();
        let aborted = 0;
        setTimeout(() => {
          aborted = performance.now();
          controller.abort("left the view");
        }, 100);
        const stopped = await watch(() =>
          arr.get(null, { signal: controller.signal }).catch((error) => ({ error })),
        );
        const settled = performance.now() - aborted;
        equal(stopped.value.error?.name, "AbortError", `${what}: ${stopped.value.error?.message}`);
        console.log(
          `second module bomb: ${what}: settled ${settled.toFixed(0)} ms after the abort, longest wait ${stopped.worst.toFixed(0)} ms`,
        );
        ok(
          aborted > 0 && settled <= 100 + calm.worst,
          `${what}: settled ${settled.toFixed(0)} ms after the abort`,
        );
        arr.free();
      }
    },
  },
];
