// zarr-wasm/viv under Viv's real layers: Viv 0.21's MultiscaleImageLayer, in a deck.gl 9.2 Deck
// with an OrthographicView, draws the committed sample (www/data/sample.ome.zarr: OME-Zarr 0.5,
// 2 channels x 2 planes x 1024 x 1024 uint16, 3 levels, sharded zstd) through zarr-wasm/viv in
// headless Chromium (WebGL2 by SwiftShader). Every pixel of the views is read back and compared
// with the sample's formula (tests/support/sample.mjs); panning away aborts tiles in flight, whose
// requests the test server sees closed. The page (tests/browser/viv-page.js) is bundled by
// esbuild with Viv, deck.gl and the package; no request may leave 127.0.0.1.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../support/server.mjs";
import { bundleViv, launchChromium } from "../support/browser.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const SIDE = 1024; // the sample's level 0 is SIDE x SIDE
const [WIDTH, HEIGHT] = [640, 480];
let server, browser;
const offOrigin = []; // requests the pages tried to send elsewhere than the test server

before(async () => {
  await bundleViv(repo);
  server = await startServer({ mounts: { "/": repo } });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** A fresh page of the bundle: one device pixel per CSS pixel, only the test server reachable. */
async function vivPage() {
  const context = await browser.newContext({
    viewport: { width: 800, height: 600 },
    deviceScaleFactor: 1,
  });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).origin === server.url) return route.continue();
    offOrigin.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));
  await page.goto(`${server.url}/tests/browser/viv.html`);
  await page.waitForFunction(() => window.vivReady, null, { timeout: 20000 });
  const renderer = await page.evaluate(() => window.vivTest.webgl());
  assert.ok(
    renderer,
    "WebGL2 in headless Chromium (SwiftShader; Playwright passes --enable-unsafe-swiftshader)",
  );
  return { page, errors, context };
}

const requests = async () => (await fetch(`${server.url}/__log`)).json();
const clearLog = async () => void (await fetch(`${server.url}/__log/clear`)).text();
const active = async () => Number(await (await fetch(`${server.url}/__active`)).text());

/** Asserts that every pixel of the view is the sample's, through the window [lo, lo + 255]. */
async function assertExact(page, view) {
  const seen = await page.evaluate((v) => window.vivTest.compare(v), { ...view, side: SIDE });
  const inImage =
    Math.max(0, Math.min(WIDTH, SIDE - view.x)) * Math.max(0, Math.min(HEIGHT, SIDE - view.y));
  assert.deepEqual(seen.size, [WIDTH, HEIGHT], "the drawing buffer is the canvas, pixel for pixel");
  assert.deepEqual(
    seen.wrong,
    [],
    `pixels that differ from the formula at ${JSON.stringify(view)}`,
  );
  assert.equal(seen.image, inImage, "pixels compared inside the image");
  return seen;
}

/** What the page logged of its reads, with nothing unexpected in it (`allowed`: console errors to pass). */
async function cleanLog(page, errors, allowed = /^$/) {
  const log = await page.evaluate(() => window.vivTest.log);
  assert.deepEqual(log.rejectedOther, [], "tile reads that failed other than by an abort");
  assert.deepEqual(log.tileErrors, [], "what reached onTileError");
  assert.deepEqual(log.errors, [], "the page's uncaught errors and unhandled rejections");
  assert.deepEqual(
    errors.filter((e) => !allowed.test(e)),
    [],
    "console errors",
  );
  assert.deepEqual(offOrigin, [], "requests to hosts other than the test server");
  return log;
}

test("viv: the adapter's SIGNAL_ABORTED is @vivjs/loaders' own", async () => {
  const { page, context } = await vivPage();
  const { ours, viv } = await page.evaluate(() => window.vivTest.signalAborted);
  assert.equal(ours, viv);
  await context.close();
});

test("viv: Viv's MultiscaleImageLayer draws level 0 of the sample through zarr-wasm/viv exactly, every pixel of two 640 x 480 views (one across the image's corner), with the background level and without", async (t) => {
  const { page, errors, context } = await vivPage();
  const url = `${server.url}/www/data/sample.ome.zarr`;
  const opened = await page.evaluate((u) => window.vivTest.open(u), url);
  assert.deepEqual(
    opened.levels.map((l) => l.shape),
    [
      [2, 2, 1024, 1024],
      [2, 2, 512, 512],
      [2, 2, 256, 256],
    ],
  );
  await clearLog();
  // Channel 1 ("cells", 700 to 999 inside them) on plane 1, the window from 650: cells in grey,
  // walls (2400) white, the texture around them (180 to 216) black.
  const first = { x: 200, y: 300, c: 1, z: 1, lo: 650 };
  await page.evaluate(
    ({ x, y, c, z, lo, width, height }) =>
      window.vivTest.show({ x, y, width, height, selection: { c, z }, lo }),
    { ...first, width: WIDTH, height: HEIGHT },
  );
  const firstRequests = (await requests()).filter((r) => r.path.includes("sample.ome.zarr")).length;
  const firstLog = await page.evaluate(() => ({ ...window.vivTest.log }));
  await assertExact(page, first);
  // 640 x 480 from (200, 300): tile columns 1 to 6 and rows 2 to 6 of 128, in 4 shards.
  assert.equal(firstLog.getTile, 6 * 5, "one read per tile in view");
  // The image's bottom-right corner, channel 0 (nuclei from 1200) on plane 0 from 150, over the
  // coarsest level drawn as Viv's background (read by getRaster); past the edge, nothing.
  const second = { x: 700, y: 800, c: 0, z: 0, lo: 150 };
  await page.evaluate(
    ({ x, y, c, z, lo, width, height }) =>
      window.vivTest.show({ x, y, width, height, selection: { c, z }, lo, background: true }),
    { ...second, width: WIDTH, height: HEIGHT },
  );
  const seen = await assertExact(page, second);
  assert.equal(seen.outside, WIDTH * HEIGHT - (SIDE - 700) * (SIDE - 800));
  const log = await cleanLog(page, errors);
  assert.equal(log.getRaster, 1, "the background plane, read whole from the coarsest level");
  t.diagnostic(
    `zarr-wasm/viv: the first view's ${firstLog.getTile} tiles in ${firstRequests} requests`,
  );
  await context.close();
});

test("viv: panning away aborts the tiles in flight: their reads reject with SIGNAL_ABORTED, the server sees their requests closed, nothing reaches onTileError, and the new view is exact", async () => {
  const { page, errors, context } = await vivPage();
  // Every answer 300 ms late: the first view's tiles are still loading when the view moves.
  const url = `${server.url}/__slow/300/www/data/sample.ome.zarr`;
  await page.evaluate((u) => window.vivTest.open(u), url);
  await clearLog();
  const selection = { c: 1, z: 0 };
  await page.evaluate((v) => window.vivTest.show({ ...v, wait: false }), {
    x: 0,
    y: 0,
    width: 512,
    height: 512,
    selection,
    lo: 650,
  });
  await page.waitForFunction(() => window.vivTest.log.getTile >= 10);
  await page.evaluate(() => window.vivTest.pan(512, 512, 512, 512));
  await page.evaluate(() => window.vivTest.settle());
  const compared = await page.evaluate((v) => window.vivTest.compare(v), {
    x: 512,
    y: 512,
    c: 1,
    z: 0,
    lo: 650,
    side: SIDE,
  });
  assert.deepEqual(compared.wrong, [], "the view after the pan");
  // Remove the layer and let every request end.
  await page.evaluate(() => window.vivTest.clear(100));
  for (let i = 0; i < 100 && (await active()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await active(), 0, "no request left open at the server");
  const log = await cleanLog(page, errors);
  assert.ok(
    log.signalsAborted >= 10,
    `deck.gl aborted the first view's tiles (${log.signalsAborted})`,
  );
  assert.equal(
    log.rejectedAborted,
    log.signalsAborted,
    "each aborted read rejected with SIGNAL_ABORTED",
  );
  assert.equal(log.resolved + log.rejectedAborted, log.getTile, "every read settled");
  const closed = (await requests()).filter((r) => r.aborted);
  assert.ok(closed.length > 0, "the server saw aborted requests");
  assert.ok(
    closed.every((r) => r.path.startsWith("/__slow/300/www/data/sample.ome.zarr/0/c/1/0/0/0")),
    `only the first view's shard was aborted: ${closed.map((r) => r.path)}`,
  );
  await context.close();
});

test("viv: Viv's own loader (loadOmeZarr, zarrita 0.5.4) tiles the sample as zarr-wasm/viv does and draws the same pixels (speed, requests and sizes are the benchmark's: bench/viv.js)", async () => {
  const view = { x: 200, y: 300, c: 1, z: 1, lo: 650 };
  const draw = async (reader) => {
    const { page, errors, context } = await vivPage();
    const opened = await page.evaluate(({ u, r }) => window.vivTest.open(u, { reader: r }), {
      u: `${server.url}/www/data/sample.ome.zarr`,
      r: reader,
    });
    await page.evaluate(
      ({ x, y, c, z, lo, width, height }) =>
        window.vivTest.show({ x, y, width, height, selection: { c, z }, lo }),
      { ...view, width: WIDTH, height: HEIGHT },
    );
    await assertExact(page, view);
    // zarrita looks for keys the sample does not have when it opens it (404s, in the console).
    const log = await cleanLog(page, errors, reader === "viv" ? /status of 404/ : /^$/);
    await context.close();
    return { tileSize: opened.levels[0].tileSize, tiles: log.getTile };
  };
  const ours = await draw("zarr-wasm");
  const viv = await draw("viv");
  assert.deepEqual(ours, viv, "the same tile size (the 128 x 128 inner chunks) and tiles");
  assert.deepEqual(offOrigin, []);
});
