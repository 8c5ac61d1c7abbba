// The viewer as a person gets it: the webpack build of www/ served with the committed sample
// (www/data/sample.ome.zarr: OME-Zarr 0.5, 2 channels x 2 planes x 1024 x 1024, 3 levels, sharded
// zstd, written by zarr-python), in headless Chromium. Its pixels are checked against the
// sample's own formula (tests/support/sample.mjs), its requests against the tiles the view needs,
// and a screenshot is kept in test-results/.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { startServer } from "../support/server.mjs";
import { launchChromium, openPage } from "../support/browser.mjs";
import { levelValue } from "../support/sample.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const sample = JSON.parse(readFileSync(`${repo}/www/data/sample.ome.zarr/zarr.json`, "utf8")).attributes.ome;
const channels = sample.omero.channels;
let server, browser, page, errors;

/** What the viewer draws for level-`level` pixel (y, x) of plane z: the channels added up. */
function expectedRgb(level, z, y, x) {
  const rgb = [0, 0, 0];
  channels.forEach((ch, c) => {
    const { start, end } = ch.window;
    const t = Math.min(1, Math.max(0, (levelValue(level, c, z, y, x, 1024) - start) / (end - start)));
    const v = Math.round(255 * t);
    const color = parseInt(ch.color, 16);
    [16, 8, 0].forEach((shift, j) => (rgb[j] = Math.min(255, rgb[j] + Math.round((((color >> shift) & 255) * v) / 255))));
  });
  return [...rgb, 255];
}

async function viewAndWait(view) {
  await page.evaluate(async (v) => {
    window.viewer.setView(v);
    await window.viewer.idle();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }, view);
}

const pixels = (points) =>
  page.evaluate((pts) => {
    const ctx = document.getElementById("view").getContext("2d");
    return pts.map(([py, px]) => Array.from(ctx.getImageData(px, py, 1, 1).data));
  }, points);

before(async () => {
  server = await startServer({ mounts: { "/": `${repo}/www/dist`, "/data/": `${repo}/www/data` } });
  browser = await launchChromium();
  ({ page, errors } = await openPage(browser, `${server.url}/?url=${server.url}/data/sample.ome.zarr`));
  await page.setViewportSize({ width: 1200, height: 800 });
  await page.waitForSelector("body[data-state=drawn]", { timeout: 30000 });
  await page.evaluate(() => window.viewer.idle());
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("viewer: the first frame shows the whole image, not blank, and a screenshot is kept", async () => {
  const canvas = await page.evaluate(() => {
    const c = document.getElementById("view");
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    for (let i = 0; i < d.length; i += 4 * 97) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return { width: c.width, height: c.height, colours: colours.size };
  });
  assert.ok(canvas.width > 300 && canvas.height > 300, `canvas ${canvas.width} x ${canvas.height}`);
  assert.ok(canvas.colours > 50, `only ${canvas.colours} colours: the image looks blank`);
  const { scale } = await page.evaluate(() => window.viewer.state.view);
  assert.ok(scale < 1, `the whole 1024 x 1024 image fits (scale ${scale})`);
  assert.deepEqual(errors, []);
  mkdirSync(`${repo}/test-results`, { recursive: true });
  await page.screenshot({ path: `${repo}/test-results/viewer.png` });
});

test("viewer: canvas pixels are the sample's values through the channel windows and colours, at full and at quarter resolution", async () => {
  // Level 0 at one canvas pixel per image pixel: canvas (py, px) is image (200 + py, 300 + px).
  await viewAndWait({ x: 300, y: 200, scale: 1 });
  assert.equal((await page.evaluate(() => window.viewer.stats())).level, 0);
  const points = [[0, 0], [5, 17], [63, 64], [100, 250], [333, 101], [499, 611]];
  const got = await pixels(points);
  points.forEach(([py, px], i) => assert.deepEqual(got[i], expectedRgb(0, 0, 200 + py, 300 + px), `level 0 pixel (${py}, ${px})`));
  // A quarter of the scale: level 2, whose pixel (y, x) is image pixel (4y, 4x).
  await viewAndWait({ x: 0, y: 0, scale: 0.25 });
  assert.equal((await page.evaluate(() => window.viewer.stats())).level, 2);
  const coarse = [[0, 0], [10, 20], [128, 200], [255, 255]];
  const gotCoarse = await pixels(coarse);
  coarse.forEach(([py, px], i) => assert.deepEqual(gotCoarse[i], expectedRgb(2, 0, py, px), `level 2 pixel (${py}, ${px})`));
  // The z slider: plane 1 differs (cells change size with z).
  await page.evaluate(() => {
    const slider = document.querySelector('#sliders input[data-axis="1"]');
    slider.value = "1";
    slider.dispatchEvent(new Event("input"));
  });
  await viewAndWait({});
  const gotZ = await pixels(coarse);
  coarse.forEach(([py, px], i) => assert.deepEqual(gotZ[i], expectedRgb(2, 1, py, px), `plane 1, level 2 pixel (${py}, ${px})`));
  assert.deepEqual(errors, []);
});

test("viewer: panning with the mouse and zooming with the wheel fetch exactly the shards of the tiles in view", async () => {
  await viewAndWait({ x: 0, y: 0, scale: 1 });
  const { width, height } = await page.evaluate(() => ({ width: viewer.state.view.width, height: viewer.state.view.height }));
  await page.evaluate(() => viewer.clearCache());
  server.log.length = 0;
  // Drag by (-300, -200) canvas pixels: the view moves from (0, 0) to (300, 200).
  await page.mouse.move(600, 400);
  await page.mouse.down();
  await page.mouse.move(450, 300, { steps: 4 });
  await page.mouse.move(300, 200, { steps: 4 });
  await page.mouse.up();
  await page.evaluate(() => window.viewer.idle());
  const view = await page.evaluate(() => ({ ...viewer.state.view }));
  assert.ok(Math.abs(view.x - 300) < 2 && Math.abs(view.y - 200) < 2, `dragged to ${view.x}, ${view.y}`);
  // Level 0: 128 x 128 tiles (inner chunks) in 512 x 512 shards; z is 1 from the last test.
  const shardsOf = (x0, y0, x1, y1) => {
    const out = new Set();
    for (let ty = Math.floor(y0 / 128) * 128; ty < y1 && ty < 1024; ty += 128) {
      for (let tx = Math.floor(x0 / 128) * 128; tx < x1 && tx < 1024; tx += 128) {
        for (const c of [0, 1]) out.add(`/data/sample.ome.zarr/0/c/${c}/1/${Math.floor(ty / 512)}/${Math.floor(tx / 512)}`);
      }
    }
    return out;
  };
  const final = shardsOf(view.x, view.y, view.x + width, view.y + height);
  // The drag passes through views between the two: what they show lies in the box of both.
  const passed = shardsOf(0, 0, view.x + width, view.y + height);
  const chunkPaths = server.log.filter((r) => /\/c\//.test(r.path)).map((r) => r.path);
  const requested = new Set(chunkPaths.filter((p) => p.includes("/sample.ome.zarr/0/")));
  for (const s of final) assert.ok(requested.has(s), `shard ${s} of the view was requested`);
  for (const r of requested) assert.ok(passed.has(r), `${r} is of level 0, plane 1, and in view on the way`);
  // Besides level 0, only the coarsest level (the backdrop while tiles load), plane 1.
  for (const p of chunkPaths.filter((p) => !p.includes("/sample.ome.zarr/0/"))) assert.match(p, /\/sample\.ome\.zarr\/2\/c\/[01]\/1\//);
  assert.ok(server.log.every((r) => r.status === 206 || r.status === 200), "all answered");
  assert.ok(server.log.filter((r) => r.range).length >= final.size, "shard indexes and inner chunks as ranges");

  // The wheel zooms out about the cursor: a coarser level, and its tiles.
  server.log.length = 0;
  await page.mouse.move(400, 300);
  // Two notches of 300: the scale goes from 1 to 0.41 (each notch 0.64x), which level 1 serves.
  for (let i = 0; i < 2; i++) await page.mouse.wheel(0, 300);
  await page.evaluate(() => window.viewer.idle());
  const after = await page.evaluate(() => ({ ...viewer.stats(), scale: viewer.state.view.scale }));
  assert.ok(after.scale < 0.5 && after.level === 1, `zoomed out to scale ${after.scale}, level ${after.level}`);
  assert.ok(server.log.some((r) => new RegExp(`/${after.level}/c/`).test(r.path)), "the new level's tiles were fetched");
  assert.deepEqual(errors, []);
});

test("viewer: tiles that leave the view before they arrive are aborted", async () => {
  // The same image from a slow server (300 ms per request), then a jump across the image.
  const slow = await browser.newPage();
  const slowErrors = [];
  slow.on("pageerror", (e) => slowErrors.push(e.message));
  // A small window: the whole image fits at a coarser level, so level 0 is not read at first.
  await slow.setViewportSize({ width: 620, height: 480 });
  await slow.goto(`${server.url}/?url=${server.url}/__slow/300/data/sample.ome.zarr`);
  await slow.waitForSelector("body[data-state=drawn]", { timeout: 30000 });
  await slow.evaluate(() => window.viewer.idle());
  server.log.length = 0;
  await slow.evaluate(() => window.viewer.setView({ x: 0, y: 0, scale: 2 }));
  // Jump once the first view's shard requests are on their way (after level 0's zarr.json).
  for (let i = 0; i < 100 && !server.log.some((r) => /\/0\/c\//.test(r.path)); i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
  await slow.evaluate(async () => {
    window.viewer.setView({ x: 700, y: 700, scale: 2 });
    await window.viewer.idle();
  });
  const stats = await slow.evaluate(() => window.viewer.stats());
  assert.ok(stats.aborted > 0, `the viewer aborted ${stats.aborted} reads`);
  await new Promise((r) => setTimeout(r, 400)); // the server notices closed connections
  const aborted = server.log.filter((r) => r.aborted);
  assert.ok(aborted.length > 0, "the server saw requests closed before their answer");
  assert.ok(aborted.every((r) => /\/0\/c\/[01]\/0\/0\/0$/.test(r.path)), `only the first view's shard: ${aborted.map((r) => r.path)}`);
  assert.deepEqual(slowErrors, []);
  await slow.close();
});

test("viewer: the zarrita.js toggle reads the same view through zarrita.js, with its own counts", async () => {
  await viewAndWait({ x: 100, y: 100, scale: 1 });
  const before = await pixels([[10, 10], [200, 300]]);
  await page.selectOption("#reader", "zarrita.js");
  await page.evaluate(async () => {
    await window.viewer.idle();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
  const stats = await page.evaluate(() => window.viewer.stats());
  assert.ok(stats.tiles > 0 && stats.requests > 0, `zarrita.js read ${stats.tiles} tiles in ${stats.requests} requests`);
  assert.deepEqual(await pixels([[10, 10], [200, 300]]), before, "the same pixels");
  const text = await page.textContent("#stats");
  assert.match(text, /zarrita\.js/);
  await page.selectOption("#reader", "zarr-wasm");
  assert.deepEqual(errors, []);
});
