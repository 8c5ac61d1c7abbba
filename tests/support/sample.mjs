// The viewer sample's picture (scripts/make_sample.py writes it with zarr-python): the same integer
// function, so that a test knows any pixel of any level without decoding the data itself.
const PITCH = 64;

/** The value at channel c, plane z, full-resolution row y and column x of a `side`-wide image. */
export function sampleValue(c, z, y, x, side) {
  const cy = Math.floor(y / PITCH);
  const cx = Math.floor(x / PITCH);
  const h = (cy * 7919 + cx * 104729 + 17) % 65536;
  const oy = 22 + (Math.floor(h / 33) % 21);
  const ox = 22 + (h % 21);
  const r = 6 + ((Math.floor(h / 7) + 3 * z) % 10);
  const dy = (y % PITCH) - oy;
  const dx = (x % PITCH) - ox;
  const d2 = dy * dy + dx * dx;
  const texture = 180 + ((x + 2 * y) % 37);
  const half = Math.floor(side / 2);
  const [by, bx] = [Math.floor(y / half), Math.floor(x / half)];
  const qy = cy * PITCH + PITCH / 2 - Math.floor(half / 2) - by * half;
  const qx = cx * PITCH + PITCH / 2 - Math.floor(half / 2) - bx * half;
  const radius = Math.floor((half * 2) / 5) + ((by * 3 + bx * 5) % 4) * Math.floor(half / 40);
  const organoid = qy * qy + qx * qx < radius * radius;
  if (c === 0) return organoid && d2 < r * r ? 1200 + (r * r - d2) * 12 : texture;
  const wall = (r + 5) * (r + 5);
  if (organoid && Math.abs(d2 - wall) < 4 * (r + 5)) return 2400;
  return organoid && d2 < wall ? 700 + (h % 300) : texture;
}

/** The value of pixel (y, x) at pyramid level `level`: the mean, rounded down, of its block of level 0. */
export function levelValue(level, c, z, y, x, side) {
  const f = 2 ** level;
  let sum = 0;
  for (let dy = 0; dy < f; dy++)
    for (let dx = 0; dx < f; dx++) sum += sampleValue(c, z, y * f + dy, x * f + dx, side);
  return Math.floor(sum / (f * f));
}
