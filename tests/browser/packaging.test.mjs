// The package as users get it: a consumer app bundled by webpack 5 and by esbuild runs in
// headless Chromium, the esbuild Node bundle and the plain ESM import run in Node, each reading
// over HTTP from the test server. Their results are checked against the fixture's values.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import webpack from "webpack";
import * as esbuild from "esbuild";
import { startServer } from "../support/server.mjs";
import { launchChromium, openPage } from "../support/browser.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const out = `${repo}/target/packaging`;
const consumer = `${repo}/tests/packaging/consumer.js`;
let server, browser;
// Not execFileSync: the test server runs in this process and must go on answering.
const run = async (file) =>
  JSON.parse((await promisify(execFile)(process.execPath, [file], { env: { ...process.env, ZARR_BASE: `${server.url}/fixtures` } })).stdout);

/** What the consumer should report, from the fixture's expected values. */
function expected() {
  const bytes = readFileSync(`${repo}/tests/fixtures/v3.expected/v3__dtypes__uint16.bin`);
  const values = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2).subarray(0, 5 * 11);
  return { dtype: "uint16", shape: [5, 11], sum: values.reduce((a, b) => a + b, 0), missing: "NotFoundError" };
}

/** Loads `dir`/index.html (which loads `script`) in Chromium and returns window.result. */
async function inChromium(dir, script) {
  writeFileSync(`${dir}/index.html`, `<!doctype html><script>window.ZARR_BASE = location.origin + "/fixtures";</script>` +
    `<script type="module" src="${script}"></script>`);
  const { page, errors } = await openPage(browser, `${server.url}/packaging/${dir.split("/").pop()}/index.html`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 20000 });
  const result = await page.evaluate(() => window.result);
  await page.close();
  assert.deepEqual(errors.filter((e) => !/status of 404/.test(e)), [], "no errors in the page");
  return result;
}

before(async () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  server = await startServer({ mounts: { "/packaging/": out, "/fixtures/": `${repo}/tests/fixtures` } });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("webpack 5: a bundled consumer runs in Chromium (the wasm emitted as an asset)", async () => {
  const dir = `${out}/webpack`;
  const stats = await new Promise((ok, fail) =>
    webpack({ mode: "production", entry: consumer, output: { path: dir, filename: "main.js" }, performance: { hints: false } },
      (err, s) => (err ? fail(err) : ok(s))));
  assert.ok(!stats.hasErrors(), stats.toString({ all: false, errors: true }));
  assert.ok(Object.keys(stats.compilation.assets).some((a) => a.endsWith(".wasm")), "the wasm is an asset of the build");
  assert.deepEqual(await inChromium(dir, "./main.js"), expected());
});

test("esbuild: a browser bundle runs in Chromium, a Node bundle in Node (the wasm copied beside them)", async () => {
  const wasm = `${repo}/pkg/zarr_wasm_bg.wasm`;
  const web = `${out}/esbuild`;
  await esbuild.build({ entryPoints: [consumer], bundle: true, format: "esm", platform: "browser", outfile: `${web}/main.js`, logLevel: "error" });
  // esbuild leaves `new URL("./zarr_wasm_bg.wasm", import.meta.url)` as it is: the file goes beside the bundle.
  copyFileSync(wasm, `${web}/zarr_wasm_bg.wasm`);
  assert.deepEqual(await inChromium(web, "./main.js"), expected());

  const node = `${out}/esbuild-node`;
  await esbuild.build({ entryPoints: [consumer], bundle: true, format: "esm", platform: "node", outfile: `${node}/main.mjs`, logLevel: "error" });
  copyFileSync(wasm, `${node}/zarr_wasm_bg.wasm`);
  assert.deepEqual(await run(`${node}/main.mjs`), expected());
});

test("Node ESM: the package imported by name, unbundled; zarr-wasm/fs resolves only for Node", async () => {
  assert.deepEqual(await run(consumer), expected());
  const pkg = JSON.parse(readFileSync(`${repo}/pkg/package.json`, "utf8"));
  assert.deepEqual(Object.keys(pkg.exports["./fs"]), ["types", "node"], "no browser entry for the file system store");
  for (const f of pkg.files) assert.ok(readFileSync(`${repo}/pkg/${f}`).length > 0, `${f} is in the package`);
});
