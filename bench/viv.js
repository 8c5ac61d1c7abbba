// Viv's MultiscaleImageLayer loading the sample through zarr-wasm/viv and through Viv's own loader
// (loadOmeZarr, zarrita 0.5.4), in headless Chromium: the page of tests/browser/viv.test.mjs
// (tests/browser/viv-page.js, bundled by esbuild), cold pages alternating, every view's pixels
// checked against the sample's formula before it counts. Also what each way adds to an app's
// download, and whether an abort reaches the server.
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { startServer } from "../tests/support/server.mjs";
import { bundleViv, launchChromium } from "../tests/support/browser.mjs";
import { median } from "./codecs.js";

const SIDE = 1024; // the sample's level 0
const [WIDTH, HEIGHT] = [640, 480];
const FIRST = { x: 200, y: 300, c: 1, z: 1, lo: 650 };
const SECOND = { x: 200, y: 0, c: 1, z: 0, lo: 650 };

/** A fresh page of the bundle, one device pixel per CSS pixel, only `origin` reachable. */
async function vivPage(browser, origin) {
  const context = await browser.newContext({
    viewport: { width: 800, height: 600 },
    deviceScaleFactor: 1,
  });
  await context.route("**/*", (route) =>
    new URL(route.request().url()).origin === origin ? route.continue() : route.abort(),
  );
  const page = await context.newPage();
  await page.goto(`${origin}/tests/browser/viv.html`);
  await page.waitForFunction(() => window.vivReady, null, { timeout: 20000 });
  return { page, context };
}

/** Shows `view` and checks every pixel against the formula; the milliseconds to draw it. */
async function show(page, view) {
  const ms = await page.evaluate(
    ({ x, y, c, z, lo, width, height }) =>
      window.vivTest.show({ x, y, width, height, selection: { c, z }, lo }),
    { ...view, width: WIDTH, height: HEIGHT },
  );
  const seen = await page.evaluate((v) => window.vivTest.compare(v), { ...view, side: SIDE });
  if (seen.wrong.length > 0)
    throw new Error(
      `${seen.wrong.length} pixels differ from the sample at ${JSON.stringify(view)}`,
    );
  return ms;
}

/** One cold page with `reader`: open, a first view, then another view on the warm page. */
async function coldRun(browser, server, reader) {
  const { page, context } = await vivPage(browser, server.url);
  try {
    const opened = await page.evaluate(({ u, r }) => window.vivTest.open(u, { reader: r }), {
      u: `${server.url}/__slow/20/www/data/sample.ome.zarr`,
      r: reader,
    });
    server.log.length = 0;
    const ms = await show(page, FIRST);
    const first = server.log.filter((r) => r.path.includes("sample.ome.zarr"));
    server.log.length = 0;
    const warmMs = await show(page, SECOND);
    const warm = server.log.filter((r) => r.path.includes("sample.ome.zarr"));
    return {
      openMs: opened.ms,
      ms,
      requests: first.length,
      heads: first.filter((r) => r.method === "HEAD").length,
      bytes: first.reduce((n, r) => n + (r.bytes ?? 0), 0),
      warmMs,
      warmRequests: warm.length,
    };
  } finally {
    await context.close();
  }
}

/** Pans away from tiles in flight (the server adding 300 ms): requests the server saw closed. */
async function abortedRequests(browser, server, reader) {
  const { page, context } = await vivPage(browser, server.url);
  try {
    await page.evaluate(({ u, r }) => window.vivTest.open(u, { reader: r }), {
      u: `${server.url}/__slow/300/www/data/sample.ome.zarr`,
      r: reader,
    });
    server.log.length = 0;
    await page.evaluate((v) => window.vivTest.show({ ...v, wait: false }), {
      x: 0,
      y: 0,
      width: 512,
      height: 512,
      selection: { c: 1, z: 0 },
      lo: 650,
    });
    await page.waitForFunction(() => window.vivTest.log.getTile >= 10);
    await page.evaluate(() => window.vivTest.pan(512, 512, 512, 512));
    await page.evaluate(() => window.vivTest.settle());
    const { signalsAborted } = await page.evaluate(() => window.vivTest.log);
    return { signalsAborted, closed: server.log.filter((r) => r.aborted).length };
  } finally {
    await context.close();
  }
}

/** Gzipped bytes an app loads at once with Viv's layers, deck.gl and `loader` (esbuild, minified). */
async function appSize(repo, loader) {
  const esbuild = await import("esbuild");
  const contents = `export { MultiscaleImageLayer } from "@vivjs/layers";
    export { Deck, OrthographicView } from "@deck.gl/core";
    ${loader}`;
  const { metafile, outputFiles } = await esbuild.build({
    stdin: { contents, resolveDir: `${repo}/tests/browser`, loader: "js" },
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    platform: "browser",
    outdir: `${repo}/target/bench/viv-size`,
    write: false,
    metafile: true,
    logLevel: "error",
  });
  const outputs = metafile.outputs;
  const byPath = new Map(outputFiles.map((f) => [f.path.slice(repo.length), f.contents]));
  const gz = (file) => gzipSync(byPath.get(file), { level: 9 }).length;
  // The entry and what it imports statically; numcodecs.js' zstd chunk is loaded at the first
  // zstd chunk read.
  const initial = new Set();
  const visit = (file) => {
    if (initial.has(file)) return;
    initial.add(file);
    for (const i of outputs[file].imports) if (i.kind === "import-statement") visit(i.path);
  };
  visit(Object.keys(outputs).find((k) => outputs[k].entryPoint === "<stdin>"));
  const zstd = Object.keys(outputs).filter((k) =>
    /numcodecs\/dist\/zstd\.js$/.test(outputs[k].entryPoint ?? ""),
  );
  return {
    initial: [...initial].reduce((n, f) => n + gz(f), 0),
    zstd: zstd.reduce((n, f) => n + gz(f), 0),
  };
}

export async function measureViv(repo, runs) {
  await bundleViv(repo);
  const server = await startServer({ mounts: { "/": repo } });
  const browser = await launchChromium();
  try {
    const results = { "zarr-wasm/viv": [], "Viv's loadOmeZarr": [] };
    const reader = { "zarr-wasm/viv": "zarr-wasm", "Viv's loadOmeZarr": "viv" };
    for (let i = 0; i < runs; i++) {
      const order = Object.keys(results);
      for (const name of i % 2 ? order.reverse() : order)
        results[name].push(await coldRun(browser, server, reader[name]));
    }
    const rows = Object.entries(results).map(([name, list]) => ({
      name,
      openMs: median(list.map((r) => r.openMs)),
      ms: median(list.map((r) => r.ms)),
      requests: median(list.map((r) => r.requests)),
      heads: median(list.map((r) => r.heads)),
      bytes: median(list.map((r) => r.bytes)),
      warmMs: median(list.map((r) => r.warmMs)),
      warmRequests: median(list.map((r) => r.warmRequests)),
      aborts: null,
    }));
    for (const row of rows) row.aborts = await abortedRequests(browser, server, reader[row.name]);
    const sizes = {
      bare: await appSize(repo, ""),
      ours: await appSize(repo, `export { openPixelSources } from "zarr-wasm/viv";`),
      viv: await appSize(repo, `export { loadOmeZarr } from "@vivjs/loaders";`),
      wasm: gzipSync(readFileSync(`${repo}/pkg/zarr_wasm_bg.wasm`), { level: 9 }).length,
    };
    return { rows, sizes, version: browser.version() };
  } finally {
    await browser.close();
    await server.close();
  }
}
