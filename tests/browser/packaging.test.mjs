// The package as users get it (`npm pack` of pkg/, unpacked into node_modules/zarr-wasm of a fresh
// project under target/packaging/), built by each bundler the README's Bundlers section names, with
// exactly the steps it gives: the fenced blocks after a bundler's line are taken from README.md
// and run as they are in the project's directory (a `// file` first line writes the file; sh
// blocks run in bash, `npx` finding the bundlers of this repository's node_modules). A bundler
// whose line says "no step" is run as a user without a config runs it. Each app
// (tests/packaging/consumer.js) reads an array in headless Chromium on the main thread, through
// `open(url, { workers: 2 })` and through a WorkerPool; the Node bundles read in Node; the results
// are checked against the fixture's values. A missing .wasm or worker script is a ZarrError that
// names the file, its URL and the fix.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import {
  cpSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { execFile } from "node:child_process";
import { createServer as netServer } from "node:net";
import { promisify } from "node:util";
import { startServer } from "../support/server.mjs";
import { launchChromium, openPage } from "../support/browser.mjs";

const repo = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const out = `${repo}/target/packaging`;
const exec = promisify(execFile);
let fixtures, browser, tarball;

/** What the consumer should report, from the fixture's expected values. */
function expected() {
  const bytes = readFileSync(`${repo}/tests/fixtures/v3.expected/v3__dtypes__uint16.bin`);
  const values = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2).subarray(
    0,
    5 * 11,
  );
  const sum = values.reduce((a, b) => a + b, 0);
  return {
    dtype: "uint16",
    shape: [5, 11],
    sum,
    workersSum: sum,
    poolSum: sum,
    missing: "NotFoundError",
  };
}

// ---------------------------------------------------------------------------------------------
// The README's steps.

/** The README's Bundlers section, between its markers. */
function section() {
  const readme = readFileSync(`${repo}/README.md`, "utf8");
  const start = readme.indexOf("<!-- bundlers:start -->");
  const end = readme.indexOf("<!-- bundlers:end -->");
  assert.ok(start >= 0 && end > start, "README.md has the bundlers:start/end markers");
  return readme.slice(start, end).split("\n");
}

/**
 * The line that names `bundler` (`**name**` at its start, in a list or not) and the fenced blocks
 * that follow it, up to the next bundler's line: [{ lang, body }].
 */
function stepsFor(bundler) {
  const lines = section();
  const names = (l) => /^(- )?\*\*[^*]+\*\*/.test(l);
  const at = lines.findIndex((l) => l.replace(/^- /, "").startsWith(`**${bundler}**`));
  assert.ok(at >= 0, `the README's Bundlers section has a line for ${bundler}`);
  const blocks = [];
  for (let i = at + 1; i < lines.length && !names(lines[i]); i++) {
    const fence = /^```(\w*)/.exec(lines[i]);
    if (!fence) continue;
    const body = [];
    for (i++; i < lines.length && !lines[i].startsWith("```"); i++) body.push(lines[i]);
    blocks.push({ lang: fence[1], body: `${body.join("\n")}\n` });
  }
  return { line: lines[at], blocks };
}

/** Asserts that the README gives no step for `bundler`. */
function noStep(bundler) {
  const { line, blocks } = stepsFor(bundler);
  assert.match(line, /no step/, `the README says ${bundler} needs no step`);
  assert.deepEqual(blocks, [], `no block for ${bundler}`);
}

/** A shell command in `dir`, bundlers from this repository's node_modules/.bin. */
function sh(dir, script) {
  // `npx X` runs X from the PATH (this repository's node_modules/.bin), never a download.
  return exec("bash", ["-euo", "pipefail", "-c", `npx() { "$@"; }\n${script}`], {
    cwd: dir,
    env: { ...process.env, PATH: `${repo}/node_modules/.bin:${process.env.PATH}` },
    maxBuffer: 64 << 20,
  });
}

/** Runs the README's steps for `bundler` in `dir`; returns how many blocks it ran. */
async function runSteps(bundler, dir) {
  const { blocks } = stepsFor(bundler);
  assert.ok(blocks.length > 0, `the README gives ${bundler}'s steps`);
  for (const { lang, body } of blocks) {
    const file = /^\/\/ (\S+)\n/.exec(body);
    if (file) writeFileSync(`${dir}/${file[1]}`, body);
    else if (lang === "sh") await sh(dir, body);
    else assert.fail(`a ${lang} block for ${bundler} that is neither a file nor commands`);
  }
  return blocks.length;
}

// ---------------------------------------------------------------------------------------------
// Projects and pages.

/**
 * A fresh project in target/packaging/`name`: package.json (ES modules), a lockfile (Parcel takes
 * the directory with one for the project's root, and keeps its cache there), the package in
 * node_modules/zarr-wasm, the consumer as src/index.js and, for the bundlers that start from
 * HTML (Vite, Parcel), index.html.
 */
async function project(name) {
  const dir = `${out}/${name}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(`${dir}/src`, { recursive: true });
  mkdirSync(`${dir}/node_modules/zarr-wasm`, { recursive: true });
  await exec("tar", [
    "xzf",
    tarball,
    "-C",
    `${dir}/node_modules/zarr-wasm`,
    "--strip-components=1",
  ]);
  writeFileSync(
    `${dir}/package.json`,
    `${JSON.stringify({ name, private: true, type: "module" })}\n`,
  );
  writeFileSync(`${dir}/package-lock.json`, `${JSON.stringify({ name, lockfileVersion: 3 })}\n`);
  cpSync(`${repo}/tests/packaging/consumer.js`, `${dir}/src/index.js`);
  writeFileSync(`${dir}/index.html`, page('<script type="module" src="./src/index.js"></script>'));
  return dir;
}

/** A page that runs `script` (the app). */
function page(script, workerUrl) {
  const worker = workerUrl
    ? `<script>window.ZARR_WORKER_URL = ${JSON.stringify(workerUrl)};</script>`
    : "";
  return `<!doctype html><html><head><meta charset="utf-8"><title>app</title>${worker}</head><body>${script}</body></html>\n`;
}

/** Opens `url` (the app's page; the fixtures' URL goes in its fragment) and returns window.result. */
async function resultAt(url) {
  const { page: tab, errors } = await openPage(browser, `${url}#${fixtures.url}/fixtures`);
  try {
    await tab.waitForFunction(() => window.result !== undefined, null, { timeout: 30000 });
    const result = await tab.evaluate(() => window.result);
    // 404s are expected: the favicon, the missing node, the files a failure test removed.
    assert.deepEqual(
      errors.filter((e) => !/status of 404/.test(e)),
      [],
      `no errors in the page ${url}`,
    );
    return result;
  } finally {
    await tab.close();
  }
}

/** Serves `dir` at / and returns window.result of its `file`. */
async function inChromium(dir, file = "index.html") {
  const server = await startServer({ mounts: { "/": dir } });
  try {
    return await resultAt(`${server.url}/${file}`);
  } finally {
    await server.close();
  }
}

/** Runs `file` with Node and returns what the consumer printed. */
async function inNode(file, env = {}) {
  const { stdout } = await exec(process.execPath, [file], {
    env: { ...process.env, ZARR_BASE: `${fixtures.url}/fixtures`, ...env },
  });
  return JSON.parse(stdout);
}

/** Asserts that `result` is a failure of class `name`, a ZarrError, whose message matches each of `patterns`. */
function failedWith(result, name, patterns) {
  assert.equal(result.error, name, JSON.stringify(result));
  assert.equal(result.zarrError, true, `a ZarrError: ${JSON.stringify(result)}`);
  for (const p of patterns) assert.match(result.message, p);
}

/** A free TCP port on 127.0.0.1. */
async function freePort() {
  const s = netServer();
  await new Promise((ok) => s.listen(0, "127.0.0.1", ok));
  const { port } = s.address();
  await new Promise((ok) => s.close(ok));
  return port;
}

before(async () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(`${out}/pack`, { recursive: true });
  const { stdout } = await exec("npm", [
    "pack",
    `${repo}/pkg`,
    "--pack-destination",
    `${out}/pack`,
    "--json",
  ]);
  tarball = `${out}/pack/${JSON.parse(stdout)[0].filename}`;
  fixtures = await startServer({ mounts: { "/fixtures/": `${repo}/tests/fixtures` } });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await fixtures?.close();
});

// ---------------------------------------------------------------------------------------------
// The bundlers.

test("Vite, no config: the dev server and `vite build` (worker format iife) read in Chromium", async () => {
  noStep("Vite");
  const dir = await project("vite");
  // Vite's own module, as the CLI runs it with no config file to load.
  const vite = await import("vite");
  const port = await freePort();
  const dev = await vite.createServer({
    root: dir,
    logLevel: "error",
    server: { host: "127.0.0.1", port, strictPort: true },
  });
  await dev.listen();
  try {
    assert.deepEqual(
      await resultAt(`http://127.0.0.1:${port}/index.html`),
      expected(),
      "dev server",
    );
  } finally {
    await dev.close();
  }
  await sh(dir, "npx vite build --logLevel error");
  const assets = readdirSync(`${dir}/dist/assets`);
  assert.ok(
    assets.some((a) => /^zarr_wasm_bg-.*\.wasm$/.test(a)),
    `the wasm is an asset: ${assets}`,
  );
  const worker = assets.find((a) => /^worker-.*\.js$/.test(a));
  assert.ok(worker, `the worker is bundled: ${assets}`);
  // Vite's default worker format: a classic script, the glue's dynamic imports inlined.
  const code = readFileSync(`${dir}/dist/assets/${worker}`, "utf8");
  assert.ok(code.startsWith("(function"), "the worker is an iife");
  assert.doesNotMatch(code, /\bimport\s*\(\s*["'`.]/, "no dynamic import left in the worker");
  assert.deepEqual(await inChromium(`${dir}/dist`), expected(), "vite build");
});

test("webpack 5, no config (./src/index.js to ./dist/main.js): reads in Chromium", async () => {
  noStep("webpack 5");
  const dir = await project("webpack");
  // What the webpack CLI does without a config file: webpack({}) in the project's directory.
  await exec(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import webpack from "webpack";
       webpack({}, (err, stats) => {
         if (err || stats.hasErrors()) {
           console.error(err ?? stats.toString({ all: false, errors: true }));
           process.exitCode = 1;
         }
       });`,
    ],
    { cwd: dir },
  );
  const files = readdirSync(`${dir}/dist`);
  assert.ok(files.includes("main.js") && files.some((f) => f.endsWith(".wasm")), `${files}`);
  writeFileSync(`${dir}/dist/index.html`, page('<script src="./main.js"></script>'));
  assert.deepEqual(await inChromium(`${dir}/dist`), expected());
});

test("Parcel: `parcel build index.html` reads in Chromium", async () => {
  noStep("Parcel");
  const dir = await project("parcel");
  await sh(dir, "npx parcel build index.html --no-autoinstall --log-level error");
  const files = readdirSync(`${dir}/dist`);
  assert.ok(
    files.some((f) => /^worker\..*\.js$/.test(f)),
    `the worker is bundled: ${files}`,
  );
  assert.deepEqual(await inChromium(`${dir}/dist`), expected());
});

test("Rollup, with the README's config and copy: reads in Chromium, and the same build in Node", async () => {
  const dir = await project("rollup");
  await runSteps("Rollup", dir);
  writeFileSync(`${dir}/dist/index.html`, page('<script type="module" src="./index.js"></script>'));
  assert.deepEqual(await inChromium(`${dir}/dist`), expected(), "in Chromium");
  assert.deepEqual(await inNode(`${dir}/dist/index.js`), expected(), "in Node");
});

test("esbuild, with the README's commands: the browser bundle reads in Chromium, the Node bundle in Node; a file left out is named", async () => {
  const dir = await project("esbuild");
  await runSteps("esbuild", dir);
  const web = `${dir}/dist`;
  const node = `${dir}/dist-node`;
  writeFileSync(`${web}/index.html`, page('<script type="module" src="./index.js"></script>'));
  assert.deepEqual(await inChromium(web), expected(), "in Chromium");
  assert.deepEqual(await inNode(`${node}/index.js`), expected(), "in Node");

  // The worker script elsewhere, its URL given: workerUrl and WorkerPool's url.
  mkdirSync(`${web}/js`);
  renameSync(`${web}/worker.js`, `${web}/js/zarr-worker.js`);
  writeFileSync(
    `${web}/moved.html`,
    page('<script type="module" src="./index.js"></script>', "/js/zarr-worker.js"),
  );
  assert.deepEqual(await inChromium(web, "moved.html"), expected(), "workerUrl in Chromium");
  renameSync(`${node}/worker.js`, `${node}/zarr-worker.js`);
  assert.deepEqual(
    await inNode(`${node}/index.js`, { ZARR_WORKER_URL: `file://${node}/zarr-worker.js` }),
    expected(),
    "workerUrl in Node",
  );

  // No worker script where the bundle looks for it: a WorkerError naming its URL and the fix.
  const noWorker = [/worker\.js/, /second entry point/, /workerUrl/, /Bundlers/];
  failedWith(await inChromium(web), "WorkerError", [
    ...noWorker,
    /http:\/\/127\.0\.0\.1:\d+\/worker\.js/,
  ]);
  failedWith(await inNode(`${node}/index.js`), "WorkerError", [
    ...noWorker,
    /dist-node\/worker\.js/,
  ]);

  // No .wasm beside the bundle: a ZarrError naming the file, its URL and the fix.
  rmSync(`${web}/zarr_wasm_bg.wasm`);
  rmSync(`${node}/zarr_wasm_bg.wasm`);
  const noWasm = [/zarr_wasm_bg\.wasm/, /node_modules\/zarr-wasm\//, /copied/, /Bundlers/];
  failedWith(await inChromium(web), "ZarrError", [
    ...noWasm,
    /http:\/\/127\.0\.0\.1:\d+\/zarr_wasm_bg\.wasm/,
    /404/,
  ]);
  const inNodeResult = await inNode(`${node}/index.js`);
  failedWith(inNodeResult, "ZarrError", [...noWasm, /file:\/\/.*dist-node\/zarr_wasm_bg\.wasm/]);
  assert.doesNotMatch(inNodeResult.message, /^ENOENT/, "not a raw ENOENT");
});

test("Node ESM: the package imported by name, unbundled; zarr-wasm/fs resolves only for Node", async () => {
  const dir = await project("node");
  assert.deepEqual(await inNode(`${dir}/src/index.js`), expected());
  const pkg = JSON.parse(readFileSync(`${repo}/pkg/package.json`, "utf8"));
  assert.deepEqual(
    Object.keys(pkg.exports["./fs"]),
    ["types", "node"],
    "no browser entry for the file system store",
  );
  for (const f of pkg.files)
    assert.ok(readFileSync(`${repo}/pkg/${f}`).length > 0, `${f} is in the package`);
});

test("the README's Bundlers section stays within 35 lines", () => {
  // Less the start marker's line and what follows the last line's newline.
  const lines = section().length - 2;
  assert.ok(lines <= 35, `${lines} lines`);
});
