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
const sample = JSON.parse(readFileSync(`${repo}/www/data/sample.ome.zarr/zarr.json`, "utf8"))
  .attributes.ome;
const channels = sample.omero.channels;
let server, browser, page, errors;

/** What the viewer draws for level-`level` pixel (y, x) of plane z: the channels added up. */
function expectedRgb(level, z, y, x) {
  const rgb = [0, 0, 0];
  channels.forEach((ch, c) => {
    const { start, end } = ch.window;
    const t = Math.min(
      1,
      Math.max(0, (levelValue(level, c, z, y, x, 1024) - start) / (end - start)),
    );
    const v = Math.round(255 * t);
    const color = parseInt(ch.color, 16);
    [16, 8, 0].forEach(
      (shift, j) =>
        (rgb[j] = Math.min(255, rgb[j] + Math.round((((color >> shift) & 255) * v) / 255))),
    );
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
  server = await startServer({
    mounts: {
      "/": `${repo}/www/dist`,
      "/data/": `${repo}/www/data`,
      "/fixtures/": `${repo}/tests/fixtures`,
    },
  });
  browser = await launchChromium();
  ({ page, errors } = await openPage(
    browser,
    `${server.url}/?url=${server.url}/data/sample.ome.zarr`,
  ));
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
    for (let i = 0; i < d.length; i += 4 * 97)
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
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
  const points = [
    [0, 0],
    [5, 17],
    [63, 64],
    [100, 250],
    [333, 101],
    [499, 611],
  ];
  const got = await pixels(points);
  points.forEach(([py, px], i) =>
    assert.deepEqual(got[i], expectedRgb(0, 0, 200 + py, 300 + px), `level 0 pixel (${py}, ${px})`),
  );
  // A quarter of the scale: level 2, whose pixel (y, x) is image pixel (4y, 4x).
  await viewAndWait({ x: 0, y: 0, scale: 0.25 });
  assert.equal((await page.evaluate(() => window.viewer.stats())).level, 2);
  const coarse = [
    [0, 0],
    [10, 20],
    [128, 200],
    [255, 255],
  ];
  const gotCoarse = await pixels(coarse);
  coarse.forEach(([py, px], i) =>
    assert.deepEqual(gotCoarse[i], expectedRgb(2, 0, py, px), `level 2 pixel (${py}, ${px})`),
  );
  // The z slider: plane 1 differs (cells change size with z).
  await page.evaluate(() => {
    const slider = document.querySelector('#sliders input[data-axis="1"]');
    slider.value = "1";
    slider.dispatchEvent(new Event("input"));
  });
  await viewAndWait({});
  const gotZ = await pixels(coarse);
  coarse.forEach(([py, px], i) =>
    assert.deepEqual(gotZ[i], expectedRgb(2, 1, py, px), `plane 1, level 2 pixel (${py}, ${px})`),
  );
  assert.deepEqual(errors, []);
});

async function setPlane(z) {
  await page.evaluate((value) => {
    const slider = document.querySelector('#sliders input[data-axis="1"]');
    slider.value = String(value);
    slider.dispatchEvent(new Event("input"));
  }, z);
}

test("viewer: a mouse drag and the wheel fetch exactly the shards of the tiles in view; a view seen before costs no request", async () => {
  await setPlane(1);
  // Twice the full resolution: the canvas (about 900 x 765) shows about 450 x 380 image pixels.
  await viewAndWait({ x: 20, y: 20, scale: 2 });
  await page.evaluate(() => viewer.clearCache());
  server.log.length = 0;
  // Drag by (-40, -40) canvas pixels: the view moves by 20 image pixels, to (40, 40), and all it
  // shows stays inside the first 512 x 512 shard.
  await page.mouse.move(600, 400);
  await page.mouse.down();
  await page.mouse.move(580, 380, { steps: 3 });
  await page.mouse.move(560, 360, { steps: 3 });
  await page.mouse.up();
  await page.evaluate(() => window.viewer.idle());
  const view = await page.evaluate(() => ({ ...viewer.state.view }));
  assert.ok(
    Math.abs(view.x - 40) < 1 && Math.abs(view.y - 40) < 1,
    `dragged to ${view.x}, ${view.y}`,
  );
  assert.ok(
    view.x + view.width / view.scale < 512 && view.y + view.height / view.scale < 512,
    "the view is inside shard (0, 0)",
  );
  const chunkLog = server.log.filter((r) => /\/c\//.test(r.path));
  const level0 = new Set(
    chunkLog.filter((r) => r.path.includes("/sample.ome.zarr/0/")).map((r) => r.path),
  );
  assert.deepEqual(
    [...level0].sort(),
    ["/data/sample.ome.zarr/0/c/0/1/0/0", "/data/sample.ome.zarr/0/c/1/1/0/0"],
    "level 0: plane 1's first shard of each channel",
  );
  for (const r of chunkLog.filter((r) => !r.path.includes("/sample.ome.zarr/0/"))) {
    assert.match(
      r.path,
      /\/sample\.ome\.zarr\/2\/c\/[01]\/1\/0\/0$/,
      "else only the coarsest level's shard (the backdrop)",
    );
  }
  assert.ok(
    chunkLog.every((r) => r.status === 206 && r.range),
    "shard indexes and inner chunks as ranges, never whole shards",
  );

  // The wheel zooms out about the cursor: four notches of 300 take the scale from 2 to 0.33,
  // which level 1 serves.
  await page.mouse.move(400, 300);
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, 300);
  await page.evaluate(() => window.viewer.idle());
  const after = await page.evaluate(() => ({ ...viewer.stats(), scale: viewer.state.view.scale }));
  assert.ok(
    after.scale < 0.5 && after.level === 1,
    `zoomed out to scale ${after.scale}, level ${after.level}`,
  );
  assert.ok(
    server.log.some((r) => r.path.includes("/sample.ome.zarr/1/c/")),
    "the new level's tiles were fetched",
  );

  // Back to the dragged view: its tiles are kept, so no request at all.
  server.log.length = 0;
  await viewAndWait({ x: 40, y: 40, scale: 2 });
  assert.deepEqual(
    server.log.map((r) => r.path),
    [],
    "a view seen before is drawn from the cache",
  );
  const got = await pixels([
    [0, 0],
    [100, 150],
  ]);
  assert.deepEqual(
    got,
    [expectedRgb(0, 1, 40, 40), expectedRgb(0, 1, 40 + 50, 40 + 75)],
    "and drawn right (2 canvas pixels an image pixel)",
  );
  assert.deepEqual(errors, []);
});

test("viewer: tiles that leave the view before they arrive are aborted", async () => {
  // The same image from a slow server (300 ms per request), then a jump across the image.
  const slow = await browser.newPage();
  const slowErrors = [];
  slow.on("pageerror", (e) => slowErrors.push(e.message));
  // What the viewer reports with console.error (a failed read); aborted requests are no error.
  slow.on(
    "console",
    (m) =>
      m.type() === "error" &&
      !/ERR_ABORTED|Failed to load resource/.test(m.text()) &&
      slowErrors.push(m.text()),
  );
  // A small window: the whole image fits at a coarser level, so level 0 is not read at first.
  await slow.setViewportSize({ width: 620, height: 480 });
  await slow.goto(`${server.url}/?url=${server.url}/__slow/300/data/sample.ome.zarr`);
  await slow.waitForSelector("body[data-state=drawn]", { timeout: 30000 });
  await slow.evaluate(() => window.viewer.idle());
  server.log.length = 0;
  await slow.evaluate(() => window.viewer.setView({ x: 0, y: 0, scale: 2 }));
  // Jump once the first view's shard requests are on their way (after level 0's zarr.json).
  for (let i = 0; i < 100 && !server.log.some((r) => /\/0\/c\//.test(r.path)); i++)
    await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
  await slow.evaluate(async () => {
    window.viewer.setView({ x: 700, y: 700, scale: 2 });
    await window.viewer.idle();
  });
  const stats = await slow.evaluate(() => window.viewer.stats());
  assert.ok(stats.aborted > 0, `the viewer aborted ${stats.aborted} reads`);
  await slow.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
  assert.ok(
    Number(await slow.evaluate(() => document.body.dataset.drawn)) > 0,
    "the new view's tiles are drawn",
  );
  await new Promise((r) => setTimeout(r, 400)); // the server notices closed connections
  const aborted = server.log.filter((r) => r.aborted);
  assert.ok(aborted.length > 0, "the server saw requests closed before their answer");
  assert.ok(
    aborted.every((r) => /\/0\/c\/[01]\/0\/0\/0$/.test(r.path)),
    `only the first view's shard: ${aborted.map((r) => r.path)}`,
  );
  assert.deepEqual(slowErrors, []);
  await slow.close();
});

test("viewer: the zarrita.js toggle reads the same view through zarrita.js, with its own counts", async () => {
  await setPlane(0);
  await viewAndWait({ x: 100, y: 100, scale: 1 });
  const points = [
    [10, 10],
    [200, 300],
    [333, 555],
    [2, 700],
  ];
  const wanted = points.map(([py, px]) => expectedRgb(0, 0, 100 + py, 100 + px));
  assert.deepEqual(await pixels(points), wanted, "zarr-wasm's pixels");
  await page.selectOption("#reader", "zarrita.js");
  await page.evaluate(async () => {
    await window.viewer.idle();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
  const stats = await page.evaluate(() => window.viewer.stats());
  assert.ok(
    stats.tiles > 0 && stats.requests > 0,
    `zarrita.js read ${stats.tiles} tiles in ${stats.requests} requests`,
  );
  assert.deepEqual(await pixels(points), wanted, "zarrita.js's pixels");
  const text = await page.textContent("#stats");
  assert.match(text, /zarrita\.js/);
  await page.selectOption("#reader", "zarr-wasm");
  assert.deepEqual(errors, []);
});

test("viewer: a plain array smaller than a tile, v2 in F order, int32 with contrast from its data, a slider for its first axis, by both readers", async () => {
  // zarr-python 2's 7 x 6 x 5 int32 array in Fortran order (zarrita.js returns it column-major),
  // without names: the first axis gets a slider, at 0.
  const { page: small, errors: smallErrors } = await openPage(
    browser,
    `${server.url}/?url=/fixtures/v2.zarr/order/f_3d_int32`,
  );
  await small.waitForSelector("body[data-state=drawn]", { timeout: 30000 });
  await small.evaluate(() => window.viewer.idle());
  const bytes = readFileSync(`${repo}/tests/fixtures/v2.expected/v2__order__f_3d_int32.bin`);
  const values = Array.from({ length: 30 }, (_, i) => bytes.readInt32LE(4 * i)); // plane 0, C order
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const grey = (v) => Math.round(255 * Math.min(1, Math.max(0, (v - lo) / (hi - lo))));
  const probe = async () =>
    small.evaluate(async () => {
      await window.viewer.idle();
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const { view } = window.viewer.state;
      const ctx = document.getElementById("view").getContext("2d");
      const out = [];
      for (const [y, x] of [
        [0, 0],
        [3, 4],
        [5, 1],
        [2, 2],
      ]) {
        const px = Math.floor((x + 0.5 - view.x) * view.scale);
        const py = Math.floor((y + 0.5 - view.y) * view.scale);
        out.push(Array.from(ctx.getImageData(px, py, 1, 1).data));
      }
      return out;
    });
  const wanted = [
    [0, 0],
    [3, 4],
    [5, 1],
    [2, 2],
  ].map(([y, x]) => {
    const g = grey(values[y * 5 + x]);
    return [g, g, g, 255];
  });
  assert.equal(
    await small.evaluate(() => document.querySelectorAll("#sliders input").length),
    1,
    "one slider",
  );
  assert.deepEqual(
    await probe(),
    wanted,
    "zarr-wasm: the values through limits taken from the data",
  );
  await small.selectOption("#reader", "zarrita.js");
  assert.deepEqual(await probe(), wanted, "zarrita.js: the same, in C order");
  // A v2 array: zarr.json is asked for first (by the page, each worker, and zarrita.js) and is 404.
  assert.deepEqual(
    smallErrors.filter((e) => !/status of 404/.test(e)),
    [],
  );
  await small.close();
});

/**
 * Opens the viewer on a ZVF fixture and counts the `points` ([x, y], world units) drawn at: a pixel
 * within `reach` pixels of where the page's projection puts each is lit.
 */
async function vectorsDrawn(name, points, reach) {
  const { page: vp, errors } = await openPage(
    browser,
    `${server.url}/?url=/fixtures/vectors/${name}.zarr`,
  );
  await vp.setViewportSize({ width: 900, height: 700 });
  await vp.waitForSelector("body[data-state=drawn]", { timeout: 30000 });
  const drawn = await vp.evaluate(
    ([points, reach]) => {
      const c = document.getElementById("view");
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      // The page's projection: the bounds fitted to the canvas within a 10-pixel margin.
      const { bounds } = window.viewer.vectors.zv;
      const margin = 10;
      const scale = Math.min(
        (c.width - 2 * margin) / (bounds[1][0] - bounds[0][0]),
        (c.height - 2 * margin) / (bounds[1][1] - bounds[0][1]),
      );
      const lit = points.filter(([x, y]) => {
        const px = Math.round(margin + (x - bounds[0][0]) * scale);
        const py = Math.round(margin + (y - bounds[0][1]) * scale);
        for (let dy = -reach; dy <= reach; dy++) {
          for (let dx = -reach; dx <= reach; dx++) {
            const i = 4 * ((py + dy) * c.width + px + dx);
            if (d[i] + d[i + 1] + d[i + 2] > 3 * 40) return true;
          }
        }
        return false;
      }).length;
      const { paths, vertices } = window.viewer.vectors;
      return { lit, paths, vertices };
    },
    [points, reach],
  );
  assert.deepEqual(
    errors.filter((e) => !/status of 404/.test(e)),
    [],
  );
  await vp.close();
  return drawn;
}

/** The midpoints of segments [a, b]. */
const midpoints = (segments) => segments.map(([a, b]) => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]);

test("viewer: a mesh's triangles and polylines' steps are drawn as lines between their vertices", async () => {
  const mesh = JSON.parse(
    readFileSync(`${repo}/tests/fixtures/vectors/mesh.expected.json`, "utf8"),
  ).whole;
  // Each triangle's first edge, from zarr-vectors' own read of the mesh.
  const edges = mesh.faces.map(([a, b]) => [mesh.positions[a], mesh.positions[b]]);
  // The line passes within a pixel of each midpoint.
  const m = await vectorsDrawn("mesh", midpoints(edges), 1);
  assert.equal(m.paths, 128, "every triangle drawn");
  assert.equal(m.lit, edges.length, "a line through every edge's midpoint");
  const lines = JSON.parse(
    readFileSync(`${repo}/tests/fixtures/vectors/polylines.expected.json`, "utf8"),
  ).objects;
  const steps = Object.values(lines).flatMap((o) =>
    o.positions.slice(1).map((p, i) => [o.positions[i], p]),
  );
  const p = await vectorsDrawn("polylines", midpoints(steps), 1);
  assert.equal(p.paths, steps.length, "every step of every polyline drawn");
  assert.equal(p.lit, steps.length, "a line through every step's midpoint");
});

test("viewer: a Zarr Vectors point cloud is drawn as a projection of its vertices", async () => {
  const want = JSON.parse(
    readFileSync(`${repo}/tests/fixtures/vectors/points.expected.json`, "utf8"),
  ).whole;
  const drawn = await vectorsDrawn("points", want.positions, 0);
  assert.equal(drawn.vertices, want.vertex_count, "every vertex read");
  assert.equal(drawn.lit, want.positions.length, "a dot at every point's projection");
});
