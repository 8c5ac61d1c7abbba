// The viewer's geometry, without the DOM: which pyramid level a zoom calls for, and which tiles of
// it cover the canvas. A view is the level-0 pixel at the canvas's top-left corner (`x`, `y`),
// `scale` canvas pixels per level-0 pixel, and the canvas size.

/**
 * The level to draw at `scale`: the coarsest whose pixels are not larger than a canvas pixel
 * (with 10 % slack, so that a view a hair under a level's own scale does not pull in the finer
 * level's four times as many tiles). `levels` are `{ downsample }`, finest first.
 */
export function pickLevel(levels, scale) {
  let best = 0;
  levels.forEach((level, i) => {
    if (level.downsample * scale <= 1.1 && level.downsample >= levels[best].downsample) best = i;
  });
  return best;
}

/**
 * The tiles of a level that the view shows: `{ row, col, y0, y1, x0, x1 }` in the level's pixels,
 * nearest the centre first (they are fetched in this order). `tile` is `[rows, cols]`, `shape`
 * the level's `[height, width]`, `downsample` its size relative to level 0 (across; `downsampleY`
 * down, where it differs).
 */
export function visibleTiles(view, { shape, tile, downsample, downsampleY = downsample }) {
  const [height, width] = shape;
  const [th, tw] = tile;
  const left = view.x / downsample;
  const top = view.y / downsampleY;
  const right = (view.x + view.width / view.scale) / downsample;
  const bottom = (view.y + view.height / view.scale) / downsampleY;
  const rows = [
    Math.max(0, Math.floor(top / th)),
    Math.min(Math.ceil(height / th), Math.ceil(bottom / th)),
  ];
  const cols = [
    Math.max(0, Math.floor(left / tw)),
    Math.min(Math.ceil(width / tw), Math.ceil(right / tw)),
  ];
  const tiles = [];
  for (let row = rows[0]; row < rows[1]; row++) {
    for (let col = cols[0]; col < cols[1]; col++) {
      tiles.push({
        row,
        col,
        y0: row * th,
        y1: Math.min(height, (row + 1) * th),
        x0: col * tw,
        x1: Math.min(width, (col + 1) * tw),
      });
    }
  }
  const cy = (top + bottom) / 2;
  const cx = (left + right) / 2;
  const distance = (t) => Math.hypot((t.y0 + t.y1) / 2 - cy, (t.x0 + t.x1) / 2 - cx);
  return tiles.sort((a, b) => distance(a) - distance(b));
}

/** The view zoomed by `factor` about the canvas point (`px`, `py`), within `[minScale, maxScale]`. */
export function zoomAbout(view, factor, px, py, minScale, maxScale) {
  const scale = Math.min(maxScale, Math.max(minScale, view.scale * factor));
  const x = view.x + px / view.scale - px / scale;
  const y = view.y + py / view.scale - py / scale;
  return { ...view, scale, x, y };
}

/** The view that shows the whole image of level-0 size `[height, width]`, centred. */
export function fitView(shape, width, height) {
  const scale = Math.min(width / shape[1], height / shape[0]);
  return {
    x: (shape[1] - width / scale) / 2,
    y: (shape[0] - height / scale) / 2,
    scale,
    width,
    height,
  };
}
