// The package as users get it: a consumer app bundled by webpack 5, by Vite and by esbuild runs in
// headless Chromium, the esbuild Node bundle and the plain ESM import run in Node, each reading
// over HTTP from the test server, on the main thread and through workers. Their results are
// checked against the fixture's values.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import webpack from "webpack";
import * as esbuild from "esbuild";
import { build as viteBuild } from "vite";
import { startServer } from "../support/server.mjs";
import { launchChromium, openPage } from "../support/browser.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const out = `${repo}/target/packaging`;
const consumer = `${repo}/tests/packaging/consumer.js`;
let server, browser;
// Not execFileSync: the test server runs in this process and must go on answering.
const run = async (file, env = {}) =>
  JSON.parse(
    (
      await promisify(execFile)(process.execPath, [file], {
        env: { ...process.env, ZARR_BASE: `${server.url}/fixtures`, ...env },
      })
    ).stdout,
  );

/** What the consumer should report, from the fixture's expected values. */
function expected() {
  const bytes = readFileSync(`${repo}/tests/fixtures/v3.expected/v3__dtypes__uint16.bin`);
  const values = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2).subarray(
    0,
    5 * 11,
  );
  const sum = values.reduce((a, b) => a + b, 0);
  return { dtype: "uint16", shape: [5, 11], sum, workerSum: sum, missing: "NotFoundError" };
}

/** Loads `dir`/index.html (which loads `script`) in Chromium and returns window.result. */
async function inChromium(dir, script, workerUrl) {
  const worker = workerUrl
    ? `window.ZARR_WORKER_URL = new URL(${JSON.stringify(workerUrl)}, location.href).href;`
    : "";
  writeFileSync(
    `${dir}/index.html`,
    `<!doctype html><script>window.ZARR_BASE = location.origin + "/fixtures";${worker}</script>` +
      `<script type="module" src="${script}"></script>`,
  );
  const { page, errors } = await openPage(
    browser,
    `${server.url}/packaging/${dir.split("/").pop()}/index.html`,
  );
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 20000 });
  const result = await page.evaluate(() => window.result);
  await page.close();
  assert.deepEqual(
    errors.filter((e) => !/status of 404/.test(e)),
    [],
    "no errors in the page",
  );
  return result;
}

before(async () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  server = await startServer({
    mounts: { "/packaging/": out, "/fixtures/": `${repo}/tests/fixtures` },
  });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("webpack 5: a bundled consumer runs in Chromium (the wasm emitted as an asset)", async () => {
  const dir = `${out}/webpack`;
  const stats = await new Promise((ok, fail) =>
    webpack(
      {
        mode: "production",
        entry: consumer,
        output: { path: dir, filename: "main.js" },
        performance: { hints: false },
      },
      (err, s) => (err ? fail(err) : ok(s)),
    ),
  );
  assert.ok(!stats.hasErrors(), stats.toString({ all: false, errors: true }));
  assert.ok(
    Object.keys(stats.compilation.assets).some((a) => a.endsWith(".wasm")),
    "the wasm is an asset of the build",
  );
  assert.deepEqual(await inChromium(dir, "./main.js"), expected());
});

test("Vite: a built consumer runs in Chromium (the wasm an asset, the worker bundled)", async () => {
  const root = `${out}/vite-src`;
  mkdirSync(root, { recursive: true });
  writeFileSync(
    `${root}/index.html`,
    `<!doctype html><script>window.ZARR_BASE = location.origin + "/fixtures";</script>` +
      `<script type="module" src="./main.js"></script>`,
  );
  writeFileSync(`${root}/main.js`, `import "${consumer}";\n`);
  // worker.format "es": the worker is a module (it imports the wasm glue and awaits at top level).
  await viteBuild({
    root,
    base: "./",
    logLevel: "error",
    configFile: false,
    worker: { format: "es" },
    build: { outDir: `${out}/vite`, emptyOutDir: true, target: "es2022" },
  });
  const { page, errors } = await openPage(browser, `${server.url}/packaging/vite/index.html`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 20000 });
  const result = await page.evaluate(() => window.result);
  await page.close();
  assert.deepEqual(
    errors.filter((e) => !/status of 404/.test(e)),
    [],
    "no errors in the page",
  );
  assert.deepEqual(result, expected());
});

test("esbuild: a browser bundle runs in Chromium, a Node bundle in Node (the wasm and the worker entry beside them)", async () => {
  const wasm = `${repo}/pkg/zarr_wasm_bg.wasm`;
  const web = `${out}/esbuild`;
  // esbuild does not bundle workers: zarr-wasm/worker is a second entry point, its URL given to the pool.
  const entryPoints = { main: consumer, worker: `${repo}/pkg/worker.js` };
  await esbuild.build({
    entryPoints,
    bundle: true,
    format: "esm",
    platform: "browser",
    outdir: web,
    logLevel: "error",
  });
  // esbuild leaves `new URL("./zarr_wasm_bg.wasm", import.meta.url)` as it is: the file goes beside the bundle.
  copyFileSync(wasm, `${web}/zarr_wasm_bg.wasm`);
  assert.deepEqual(await inChromium(web, "./main.js", "./worker.js"), expected());

  const node = `${out}/esbuild-node`;
  await esbuild.build({
    entryPoints,
    bundle: true,
    format: "esm",
    platform: "node",
    outdir: node,
    outExtension: { ".js": ".mjs" },
    logLevel: "error",
  });
  copyFileSync(wasm, `${node}/zarr_wasm_bg.wasm`);
  assert.deepEqual(
    await run(`${node}/main.mjs`, { ZARR_WORKER_URL: `file://${node}/worker.mjs` }),
    expected(),
  );
});

test("Node ESM: the package imported by name, unbundled; zarr-wasm/fs resolves only for Node", async () => {
  assert.deepEqual(await run(consumer), expected());
  const pkg = JSON.parse(readFileSync(`${repo}/pkg/package.json`, "utf8"));
  assert.deepEqual(
    Object.keys(pkg.exports["./fs"]),
    ["types", "node"],
    "no browser entry for the file system store",
  );
  for (const f of pkg.files)
    assert.ok(readFileSync(`${repo}/pkg/${f}`).length > 0, `${f} is in the package`);
});
