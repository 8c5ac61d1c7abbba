// The viewer's geometry (www/view.js): which level a zoom calls for, which tiles a view shows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fitView, pickLevel, visibleTiles, zoomAbout } from "../../www/view.js";

const levels = [1, 2, 4, 8].map((downsample) => ({ downsample }));

test("pickLevel: the coarsest level whose pixels are no larger than a screen pixel", () => {
  assert.equal(pickLevel(levels, 4), 0, "zoomed in past 1:1: the finest");
  assert.equal(pickLevel(levels, 1), 0);
  assert.equal(
    pickLevel(levels, 0.75),
    0,
    "0.75 of level 0 would be 1.5 screen pixels per level-1 pixel",
  );
  assert.equal(pickLevel(levels, 0.5), 1);
  assert.equal(pickLevel(levels, 0.52), 1, "within the 10 % slack");
  assert.equal(pickLevel(levels, 0.26), 2);
  assert.equal(pickLevel(levels, 0.01), 3, "zoomed far out: the coarsest");
});

test("visibleTiles: the tiles under the canvas, clipped to the image, nearest the centre first", () => {
  const level = { shape: [1000, 700], tile: [256, 256], downsample: 2 };
  // Level-0 view of 800 x 600 canvas pixels at scale 0.5: level-0 box (100, 200)-(1700, 1400),
  // level-1 box (50, 100)-(850, 700): rows 0..2, columns 0..3, clipped to the 700-wide level.
  const tiles = visibleTiles({ x: 100, y: 200, scale: 0.5, width: 800, height: 600 }, level);
  assert.equal(tiles.length, 3 * 3);
  assert.deepEqual(
    new Set(tiles.map((t) => `${t.row},${t.col}`)),
    new Set(["0,0", "0,1", "0,2", "1,0", "1,1", "1,2", "2,0", "2,1", "2,2"]),
  );
  const last = tiles.find((t) => t.row === 2 && t.col === 2);
  assert.deepEqual(
    [last.y0, last.y1, last.x0, last.x1],
    [512, 768, 512, 700],
    "the edge tile stops at the image",
  );
  assert.deepEqual([tiles[0].row, tiles[0].col], [1, 1], "the centre tile first");
  assert.deepEqual(
    visibleTiles({ x: -5000, y: 0, scale: 1, width: 100, height: 100 }, level),
    [],
    "a view beside the image",
  );
});

test("zoomAbout keeps the point under the cursor; fitView centres the image", () => {
  const view = { x: 100, y: 50, scale: 1, width: 400, height: 300 };
  const zoomed = zoomAbout(view, 2, 200, 100, 0, 10);
  assert.equal(zoomed.scale, 2);
  assert.deepEqual(
    [zoomed.x + 200 / 2, zoomed.y + 100 / 2],
    [100 + 200, 50 + 100],
    "the image point under the cursor stays",
  );
  assert.equal(zoomAbout(view, 100, 0, 0, 0, 8).scale, 8, "clamped");
  const fit = fitView([1000, 2000], 400, 300);
  assert.equal(fit.scale, 0.2);
  assert.deepEqual(
    [fit.x, fit.y],
    [0, -250],
    "the image's 200-pixel height centred in the 300-pixel canvas",
  );
});
