// Colour: contrast limits map values to 0..255, a lookup table of 256 colours maps those to RGB.
// Channels are added together (additive colour, as microscopy viewers mix channels).

/** Stops of the perceptual maps, sampled from matplotlib's definitions at eight points. */
const STOPS = {
  viridis: ["440154", "46327e", "365c8d", "277f8e", "1fa187", "4ac16d", "a0da39", "fde725"],
  magma: ["000004", "1c1044", "4f127b", "812581", "b5367a", "e55064", "fb8761", "fcfdbf"],
};

function hexRgb(hex) {
  const n = parseInt(hex, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * A lookup table: 256 RGB triples (a Uint8Array of 768). `name` is "grey", a map in STOPS, or a
 * colour "RRGGBB" (black to that colour, as OMERO channel colours).
 */
export function lut(name) {
  const out = new Uint8Array(768);
  if (STOPS[name]) {
    const stops = STOPS[name].map(hexRgb);
    for (let i = 0; i < 256; i++) {
      const t = (i / 255) * (stops.length - 1);
      const k = Math.min(stops.length - 2, Math.floor(t));
      const f = t - k;
      for (let j = 0; j < 3; j++)
        out[3 * i + j] = Math.round(stops[k][j] * (1 - f) + stops[k + 1][j] * f);
    }
    return out;
  }
  const rgb = /^[0-9a-f]{6}$/i.test(name) ? hexRgb(name) : [255, 255, 255];
  for (let i = 0; i < 256; i++)
    for (let j = 0; j < 3; j++) out[3 * i + j] = Math.round((rgb[j] * i) / 255);
  return out;
}

/** The level 0..255 of `value` between the contrast limits `lo` and `hi`. */
export function level(value, lo, hi) {
  const t = (Number(value) - lo) / (hi - lo || 1);
  return Math.round(255 * Math.min(1, Math.max(0, t)));
}

/**
 * Adds channel `data` (any numeric typed array), through contrast limits `[lo, hi]` and `table`,
 * into `rgba` (a Uint8ClampedArray of 4 per value; saturating sums, alpha set opaque).
 */
export function addChannel(rgba, data, [lo, hi], table) {
  const span = hi - lo || 1;
  for (let i = 0; i < data.length; i++) {
    const t = (Number(data[i]) - lo) / span;
    const k = 3 * Math.round(255 * (t < 0 ? 0 : Math.min(t, 1)));
    const o = 4 * i;
    rgba[o] += table[k];
    rgba[o + 1] += table[k + 1];
    rgba[o + 2] += table[k + 2];
    rgba[o + 3] = 255;
  }
}
