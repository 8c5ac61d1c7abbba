// The second module (numcodecs' lzma, bz2, pcodec and zfpy, the registry's zfp, in
// zarr_wasm_extra_bg.wasm), shared by Node and headless Chromium: the fixture arrays themselves
// are read by the manifest cases (extra.expected.json, zarrs.expected.json); here, damaged
// chunks, through a user's store that damages one key.
import { bytesOf, rejects, sameBytes } from "../support/check.mjs";

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
];
