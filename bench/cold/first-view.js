// The first view of an OME-Zarr image on a cold page (issue 50, measured by bench/cold.mjs): the
// image's group opened and its multiscales read, the lowest level read whole (the viewer's first
// pixels), then a 1024 x 768 view of the finest level asked for at once as twelve 256 x 256 tiles
// on the chunk grid, as Viv asks for them. Times are from the page's time origin (navigation
// start), so they include the download of the page's code and, for zarr-wasm, compiling its module.

/** The view of the finest level: 3 rows of 4 tiles from (512, 512). */
export const FIRST_VIEW = { y: 512, x: 512, rows: 3, cols: 4, tile: 256 };

/** The multiscales' level paths, finest first: NGFF 0.4's attributes or 0.5's under "ome". */
export function levelPaths(attrs) {
  const multiscales = (attrs.ome ?? attrs).multiscales;
  if (!multiscales?.[0]?.datasets) throw new Error("the group has no multiscales");
  return multiscales[0].datasets.map((d) => d.path);
}

/**
 * `image(params)` opens the image's group and resolves to `{ paths, level(path) }`; `level`
 * resolves to `{ whole(), tile(y, x) }`, each resolving to a read with `data`. The result lands on
 * `window.coldView`.
 */
export async function firstView(image) {
  try {
    const { paths, level } = await image(new URLSearchParams(location.search));
    const openedMs = performance.now();
    // Both levels opened at once: a viewer knows both paths from the multiscales.
    const [lowest, finest] = await Promise.all([level(paths.at(-1)), level(paths[0])]);
    const overview = await lowest.whole();
    const firstMs = performance.now();
    const { y, x, rows, cols, tile } = FIRST_VIEW;
    const tiles = [];
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) tiles.push(finest.tile(y + r * tile, x + c * tile));
    const done = await Promise.all(tiles);
    const allMs = performance.now();
    // A checksum of every value read, to check that both readers read the same.
    let sum = 0;
    for (const t of [overview, ...done])
      for (let i = 0; i < t.data.length; i += 7) sum = (sum * 31 + t.data[i]) >>> 0;
    window.coldView = { openedMs, firstMs, allMs, sum };
  } catch (err) {
    window.coldView = { error: String(err?.stack ?? err) };
  }
}
