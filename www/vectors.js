// Zarr Vectors in the viewer: a point cloud, line set, graph, skeleton or mesh drawn as a 2-D
// projection onto its first two axes: links (edges, triangles' outlines, polylines' steps) as grey
// lines, each vertex a dot coloured by its third coordinate (viridis), or by its level in 2-D.
import { openVectors } from "zarr-wasm";
import { lut } from "./colormap.js";

/** The projection of level-0 world coordinates to canvas pixels, the bounds fitted to the canvas. */
export function projection(bounds, width, height, margin = 10) {
  const [lo, hi] = bounds;
  const scale = Math.min(
    (width - 2 * margin) / (hi[0] - lo[0] || 1),
    (height - 2 * margin) / (hi[1] - lo[1] || 1),
  );
  return (x, y) => [margin + (x - lo[0]) * scale, margin + (y - lo[1]) * scale];
}

/** Opens the store at `url` and draws all its vertices and links; resolves to what was drawn. */
export async function showVectors(url, canvas) {
  const zv = await openVectors(url);
  const { positions, chunks, links } = await zv.select({ level: 0 });
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#111";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const place = projection(zv.bounds, canvas.width, canvas.height);
  const colours = lut("viridis");
  const n = zv.ndim;
  // Number(): int64 vertices come as BigInts.
  const at = (values, v) => place(Number(values[v * n]), Number(values[v * n + 1]));
  ctx.strokeStyle = "rgba(190, 190, 190, 0.7)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  let paths = 0;
  if (links) {
    const { width, indices } = links;
    for (let l = 0; l < indices.length; l += width) {
      ctx.moveTo(...at(positions, indices[l]));
      for (let k = 1; k < width; k++) ctx.lineTo(...at(positions, indices[l + k]));
      if (width > 2) ctx.closePath();
      paths++;
    }
  }
  ctx.stroke();
  const [zlo, zhi] = n > 2 ? [zv.bounds[0][2], zv.bounds[1][2]] : [0, 1];
  for (let i = 0; i < positions.length / n; i++) {
    const [px, py] = place(Number(positions[i * n]), Number(positions[i * n + 1]));
    const t =
      n > 2 ? Math.round((255 * (Number(positions[i * n + 2]) - zlo)) / (zhi - zlo || 1)) : 200;
    const k = 3 * Math.min(255, Math.max(0, t));
    ctx.fillStyle = `rgb(${colours[k]},${colours[k + 1]},${colours[k + 2]})`;
    ctx.fillRect(Math.round(px) - 1, Math.round(py) - 1, 3, 3);
  }
  return { zv, vertices: positions.length / n, chunks: chunks.length, paths };
}
