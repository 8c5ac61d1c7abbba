// A cold page's first view (bench/cold/*.html, measured by bench/cold.mjs): the viewport of
// bench/tiles.js (twelve 256 x 256 tiles of the sharded zstd image) asked for at once as soon as
// the array is open. Times are from the page's time origin (navigation start), so they include
// the page's download of its code and, for zarr-wasm, compiling the module.
import { VIEW } from "../viewport.js";

/** `open()` resolves to `read(y, x)` for one tile; the result lands on `window.coldView`. */
export async function coldView(open) {
  try {
    const read = await open(new URLSearchParams(location.search));
    const openedMs = performance.now();
    let firstMs = 0;
    const tiles = [];
    for (let r = 0; r < VIEW.rows; r++) {
      for (let c = 0; c < VIEW.cols; c++) {
        tiles.push(
          read(VIEW.y + r * VIEW.tile, VIEW.x + c * VIEW.tile).then((tile) => {
            firstMs ||= performance.now();
            return tile;
          }),
        );
      }
    }
    const done = await Promise.all(tiles);
    const allMs = performance.now();
    // A checksum of every tile's values, to check that both readers read the same.
    let sum = 0;
    for (const t of done)
      for (let i = 0; i < t.data.length; i += 7) sum = (sum * 31 + t.data[i]) >>> 0;
    window.coldView = { openedMs, firstMs, allMs, sum };
  } catch (err) {
    window.coldView = { error: String(err?.stack ?? err) };
  }
}
