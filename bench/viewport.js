// The viewport both tile benchmarks read (bench/tiles.js, bench/cold/view.js): twelve 256 x 256
// tiles, 3 rows of 4, from (640, 512) of the sharded image.
export const VIEW = { y: 640, x: 512, rows: 3, cols: 4, tile: 256 };
