// The demo viewer as a person gets it: the webpack build of www/ served with the bundled sample,
// loaded in headless Chromium. Its pixels are checked against the sample's chunks decoded here
// independently (node:zlib), and a screenshot is kept in test-results/.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { startServer } from "../support/server.mjs";
import { launchChromium, openPage } from "../support/browser.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const sample = `${repo}/www/data/sample.zarr/image`;
let server, browser, page, errors;

/** The sample's value at (y, x), from its gzip chunk on disk. */
function sampleValue(y, x) {
  const meta = JSON.parse(readFileSync(`${sample}/zarr.json`, "utf8"));
  const [ch, cw] = meta.chunk_grid.configuration.chunk_shape;
  const raw = gunzipSync(readFileSync(`${sample}/c/${Math.floor(y / ch)}/${Math.floor(x / cw)}`));
  return raw.readUInt16LE(2 * ((y % ch) * cw + (x % cw)));
}

before(async () => {
  server = await startServer({ mounts: { "/": `${repo}/www/dist`, "/data/": `${repo}/www/data` } });
  browser = await launchChromium();
  ({ page, errors } = await openPage(browser, `${server.url}/`));
  await page.waitForSelector("body[data-state]", { state: "attached", timeout: 20000 });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("demo: the webpack-built page opens the sample and draws it", async () => {
  const state = await page.evaluate(() => document.body.dataset.state);
  const status = await page.textContent("#status");
  assert.equal(state, "drawn", `page status: ${status}`);
  assert.deepEqual(errors, []);
  mkdirSync(`${repo}/test-results`, { recursive: true });
  await page.screenshot({ path: `${repo}/test-results/demo.png` });
});

test("demo: canvas pixels are the sample's values through the contrast limits", async () => {
  const [lo, hi] = JSON.parse(readFileSync(`${sample}/zarr.json`, "utf8")).attributes.contrast_limits;
  const points = [[0, 0], [10, 300], [127, 128], [256, 256], [400, 33], [511, 511]];
  const pixels = await page.evaluate((pts) => {
    const ctx = document.getElementById("view").getContext("2d");
    return pts.map(([y, x]) => Array.from(ctx.getImageData(x, y, 1, 1).data));
  }, points);
  points.forEach(([y, x], i) => {
    const g = Math.round(255 * Math.min(1, Math.max(0, (sampleValue(y, x) - lo) / (hi - lo))));
    assert.deepEqual(pixels[i], [g, g, g, 255], `pixel at y=${y} x=${x}`);
  });
  const distinct = await page.evaluate(() => {
    const c = document.getElementById("view");
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    return new Set(Array.from({ length: d.length / 4 }, (_, i) => d[4 * i])).size;
  });
  assert.ok(distinct > 100, `only ${distinct} grey levels: the image looks blank`);
});

test("demo: the page made one metadata request and one per chunk", () => {
  const data = server.log.filter((r) => r.path.startsWith("/data/"));
  const paths = data.map((r) => r.path);
  assert.equal(paths.filter((p) => p.endsWith("zarr.json")).length, 1, paths.join("\n"));
  const chunks = paths.filter((p) => /\/c\/\d+\/\d+$/.test(p));
  assert.equal(chunks.length, 16);
  assert.equal(new Set(chunks).size, 16);
  assert.ok(data.every((r) => r.status === 200));
});
