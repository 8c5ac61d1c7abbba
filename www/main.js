// The demo: opens a Zarr array with zarr-wasm (the bundled sample by default) and draws a 2-D plane
// of it in grey levels. ?url=...&path=... opens another array.
import { open } from "zarr-wasm";

const canvas = document.getElementById("view");
const status = document.getElementById("status");
const info = document.getElementById("info");

const params = new URLSearchParams(location.search);
const url = params.get("url") || new URL("data/sample.zarr", location.href).href;
const path = params.get("path") ?? (params.get("url") ? "" : "image");
document.getElementById("url").value = url;
document.getElementById("path").value = path;

/** Grey level 0..255 for `value` between the contrast limits `lo` and `hi`. */
export function grey(value, lo, hi) {
  const t = (Number(value) - lo) / (hi - lo || 1);
  return Math.round(255 * Math.min(1, Math.max(0, t)));
}

function limitsOf(arr, data) {
  const given = arr.attrs.contrast_limits;
  if (Array.isArray(given) && given.length === 2) return given.map(Number);
  let lo = Infinity, hi = -Infinity;
  for (const v of data) {
    const n = Number(v);
    if (n < lo) lo = n;
    if (n > hi) hi = n;
  }
  return [lo, hi];
}

function show(rows) {
  info.replaceChildren(...rows.flatMap(([k, v]) => {
    const dt = document.createElement("dt");
    const dd = document.createElement("dd");
    dt.textContent = k;
    dd.textContent = v;
    return [dt, dd];
  }));
}

async function main() {
  const started = performance.now();
  const arr = await open(url, { path });
  if (arr.kind !== "array") throw new Error(`${url} ${path} is a group; give an array path`);
  if (arr.shape.length < 2) throw new Error(`the array has ${arr.shape.length} dimensions; the viewer draws 2`);
  // The last two axes are the image; earlier axes are taken at index 0.
  const selection = arr.shape.map((_, i) => (i < arr.shape.length - 2 ? 0 : null));
  const { data, shape } = await arr.get(selection);
  const [height, width] = shape;
  const [lo, hi] = limitsOf(arr, data);
  const image = new ImageData(width, height);
  for (let i = 0; i < width * height; i++) {
    const g = grey(data[i], lo, hi);
    image.data.set([g, g, g, 255], 4 * i);
  }
  canvas.width = width;
  canvas.height = height;
  canvas.getContext("2d").putImageData(image, 0, 0);
  const ms = performance.now() - started;
  show([
    ["array", path || "/"],
    ["shape", arr.shape.join(" × ")],
    ["chunks", arr.chunks?.join(" × ") ?? "irregular"],
    ["dtype", arr.dtype],
    ["contrast", `${lo} – ${hi}`],
    ["open + read", `${ms.toFixed(1)} ms`],
  ]);
  status.textContent = "Drawn.";
  document.body.dataset.state = "drawn";
}

main().catch((err) => {
  status.textContent = `${err.name}: ${err.message}`;
  status.className = "error";
  document.body.dataset.state = "error";
  console.error(err);
});
