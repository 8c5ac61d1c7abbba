// The npm package as it would be published (pkg/, built by scripts/build.sh): what `npm pack` puts
// in it, how its entry points resolve, and the two checkers package authors use, publint and
// arethetypeswrong (pinned devDependencies), both clean.
import { test } from "node:test";
import { deepEqual, equal, ok } from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { publint } from "publint";

const repo = new URL("../../", import.meta.url).pathname;
const pkgDir = `${repo}pkg`;
const manifest = JSON.parse(readFileSync(`${pkgDir}/package.json`, "utf8"));

/** The files `npm pack` would put in the tarball. */
function packed() {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--loglevel=error"], {
    cwd: pkgDir,
    encoding: "utf8",
  });
  return JSON.parse(out)[0].files.map((f) => f.path);
}

test("package: npm pack holds the modules, their glue and types, the licences and README, and nothing else", () => {
  const files = packed();
  const listed = new Set([...manifest.files, "package.json"]);
  deepEqual(
    files.filter((f) => !listed.has(f)),
    [],
    "only what package.json's files lists",
  );
  for (const needed of [
    "index.js",
    "index.d.ts",
    "zarr_wasm.js",
    "zarr_wasm_bg.wasm",
    "zarr_wasm_extra.js",
    "zarr_wasm_extra_bg.wasm",
    "zarr_wasm_extra_write.js",
    "zarr_wasm_extra_write_bg.wasm",
    "extra.js",
    "worker.js",
    "fs.js",
    "zarrita.js",
    "zarrita.d.ts",
    "viv.js",
    "viv.d.ts",
    "ome.js",
    "ome.d.ts",
    "convert.js",
    "convert.d.ts",
    "cli.js",
    "LICENSE-MIT",
    "LICENSE-APACHE",
    "README.md",
  ]) {
    ok(files.includes(needed), `${needed} is packed`);
  }
  ok(
    !files.some((f) => /\.(rs|toml|mjs|map|lock)$|^(src|tests|scripts|target)\//.test(f)),
    "no sources, tests or build files",
  );
  // Every entry point's files, with types, are in it.
  for (const [entry, target] of Object.entries(manifest.exports)) {
    const paths = typeof target === "string" ? [target] : Object.values(target);
    for (const path of paths) {
      ok(files.includes(path.replace(/^\.\//, "")), `${entry}: ${path} is packed`);
    }
    ok(typeof target === "object" && target.types, `${entry} has types`);
  }
});

test("package: every file a packed module imports is packed too", () => {
  const files = new Set(packed());
  for (const file of [...files].filter((f) => f.endsWith(".js"))) {
    const text = readFileSync(`${pkgDir}/${file}`, "utf8");
    const imported = [...text.matchAll(/(?:from|import\(|new URL\()\s*["']\.\/([^"']+)["']/g)].map(
      (m) => m[1],
    );
    for (const name of imported) ok(files.has(name), `${file} imports ./${name}, which is packed`);
  }
});

/** The cycles among the static imports (and re-exports) of the package's own modules in `dir`. */
function importCycles(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith(".js") && !f.startsWith("zarr_wasm"));
  const imports = new Map(
    files.map((file) => {
      const text = readFileSync(`${dir}/${file}`, "utf8");
      const names = [
        ...text.matchAll(/^\s*(?:import|export)\b[^;"']*?from\s*["']\.\/([^"']+)["']/gm),
      ];
      return [file, names.map((m) => m[1]).filter((n) => files.includes(n))];
    }),
  );
  const cycles = [];
  const walk = (file, path) => {
    if (path.includes(file)) {
      // Each cycle once, from its first file by name.
      const cycle = path.slice(path.indexOf(file));
      const first = cycle.indexOf([...cycle].sort()[0]);
      const turned = [...cycle.slice(first), ...cycle.slice(0, first)];
      cycles.push([...turned, turned[0]].join(" -> "));
      return;
    }
    for (const next of imports.get(file) ?? []) walk(next, [...path, file]);
  };
  for (const file of files) walk(file, []);
  return [...new Set(cycles)];
}

test("package: no module of the package imports one that imports it back (pkg/*.js)", () => {
  const cycles = importCycles(pkgDir);
  deepEqual(cycles, [], "import cycles");
});

test("package: its entry points resolve, by name, to pkg/ for import (Node) and each declares types", async () => {
  for (const [entry, file] of [
    ["zarr-wasm", "index.js"],
    ["zarr-wasm/fs", "fs.js"],
    ["zarr-wasm/worker", "worker.js"],
    ["zarr-wasm/zarrita", "zarrita.js"],
    ["zarr-wasm/viv", "viv.js"],
    ["zarr-wasm/ome", "ome.js"],
    ["zarr-wasm/convert", "convert.js"],
    ["zarr-wasm/zarr_wasm_bg.wasm", "zarr_wasm_bg.wasm"],
  ]) {
    const url = import.meta.resolve(entry);
    ok(url.endsWith(`/pkg/${file}`), `${entry} resolves to ${url}`);
  }
  const root = manifest.exports["."];
  deepEqual(
    ["types", "browser", "node", "import", "default"].map((c) => root[c]),
    ["./index.d.ts", "./index.js", "./index.js", "./index.js", "./index.js"],
    "the root's conditions",
  );
  for (const target of Object.values(manifest.exports)) {
    ok(existsSync(`${pkgDir}/${target.types}`), `${target.types} exists`);
  }
  const { open } = await import("zarr-wasm");
  equal(typeof open, "function", "the package imports by name");
});

test("package: publint finds nothing to report", async () => {
  const { messages } = await publint({ pkgDir, level: "suggestion", strict: true });
  deepEqual(
    messages.map((m) => `${m.type} ${m.code} ${m.path?.join(".")}`),
    [],
    "publint's messages",
  );
});

test("package: arethetypeswrong finds no problem for an ESM-only package", () => {
  // The esm-only profile: the package is ESM ("type": "module"), so CommonJS `require` of it is
  // not a goal; every other resolution mode (node16 ESM, bundler) must find types and code.
  const attw = `${repo}node_modules/.bin/attw`;
  const run = spawnSync(
    attw,
    ["--pack", pkgDir, "--profile", "esm-only", "--format", "table-flipped"],
    {
      encoding: "utf8",
      cwd: repo,
    },
  );
  equal(run.status, 0, `attw exited with ${run.status}:\n${run.stdout}\n${run.stderr}`);
  ok(/No problems found|🟢/.test(run.stdout), run.stdout);
});

test("package: a second-module file left out of a deployment is named in the error, glue or wasm", async () => {
  const { cpSync, mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  for (const missing of ["zarr_wasm_extra.js", "zarr_wasm_extra_bg.wasm"]) {
    const dir = mkdtempSync(`${tmpdir()}/zarr-wasm-pkg-`);
    try {
      cpSync(pkgDir, dir, { recursive: true });
      rmSync(`${dir}/${missing}`);
      // A process of its own: each copy of the package is a module instance of its own.
      const script = `
        const zarr = await import(${JSON.stringify(`${dir}/index.js`)});
        const { FileSystemStore } = await import(${JSON.stringify(`${dir}/fs.js`)});
        const store = new FileSystemStore(${JSON.stringify(`${repo}tests/fixtures/extra.zarr`)});
        try {
          await zarr.open(store, { path: "lzma/xz" });
          console.log("opened");
        } catch (err) {
          console.log(err.name + ": " + err.message);
        }`;
      const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        encoding: "utf8",
      });
      const said = out.stdout.trim();
      ok(said.includes(`${missing}`), `the error names ${missing}: ${said}`);
      ok(/StoreError/.test(said) && /second module/.test(said), `a StoreError: ${said}`);
      ok(
        missing.endsWith(".js") ? /the glue/.test(said) : /the WebAssembly/.test(said),
        `says which kind of file: ${said}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test("install: the README's Install steps, as written, give an app that reads with zarr-wasm", async () => {
  const { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const readme = readFileSync(`${repo}README.md`, "utf8");
  const install = readme.slice(
    readme.indexOf("## Install"),
    readme.indexOf("\n## ", readme.indexOf("## Install") + 3),
  );
  ok(
    /not on the npm registry yet/.test(install),
    "the Install section says the package is not published",
  );
  const block = /```sh\n([\s\S]*?)```/.exec(install)?.[1];
  ok(block, "the Install section has its steps");
  const lines = block.split("\n").filter((l) => l.trim() && !l.startsWith("#"));
  const steps = lines.map((l) => l.replace(/\s+#.*$/, ""));
  // The build is what the test command itself ran first (scripts/test.sh): pkg/ is its output.
  equal(steps[0], "bash scripts/setup.sh && bash scripts/build.sh");
  const testScript = readFileSync(`${repo}scripts/test.sh`, "utf8");
  ok(/bash scripts\/setup\.sh \|\| exit 1\nbash scripts\/build\.sh \|\| exit 1/.test(testScript));
  // The rest as written: packed in "the clone" (its pkg/ here), installed in an app beside it.
  const root = mkdtempSync(`${tmpdir()}/zarr-wasm-install-`);
  try {
    const [clone, app] = [`${root}/clone`, `${root}/app`];
    cpSync(pkgDir, `${clone}/pkg`, { recursive: true });
    mkdirSync(app);
    writeFileSync(`${app}/package.json`, '{ "name": "app", "private": true, "type": "module" }\n');
    const run = (cwd, line) => {
      const r = spawnSync("sh", ["-c", line], { cwd, encoding: "utf8" });
      equal(r.status, 0, `${line}: ${r.stderr}`);
    };
    equal(steps.length, 3, `three steps: build, pack, install (${steps})`);
    run(clone, steps[1]);
    run(app, steps[2]); // ../ is the directory beside both, where the tarball went
    const script = `import { open } from "zarr-wasm"; import { FileSystemStore } from "zarr-wasm/fs";
const arr = await open(new FileSystemStore(${JSON.stringify(`${repo}tests/fixtures/v3.zarr`)}), { path: "dtypes/uint8", kind: "array" });
const { data, shape } = await arr.get();
console.log(JSON.stringify({ shape, n: data.length }));`;
    writeFileSync(`${app}/read.mjs`, script);
    const r = spawnSync(process.execPath, ["read.mjs"], { cwd: app, encoding: "utf8" });
    equal(r.status, 0, r.stderr);
    const { shape, n } = JSON.parse(r.stdout);
    ok(shape.length > 0 && n === shape.reduce((a, b) => a * b, 1), r.stdout);
    ok(existsSync(`${app}/node_modules/zarr-wasm/zarr_wasm_bg.wasm`), "installed from the tarball");
    // The package's command, as the README gives it, from the installed tarball.
    const source = `${repo}tests/fixtures/ome/ome_zarr_py_04.zarr`;
    const line = `npx zarr-wasm convert ${JSON.stringify(source)} image.ome.zarr --ome --shards 256,256 --quiet`;
    run(app, line);
    const written = JSON.parse(readFileSync(`${app}/image.ome.zarr/zarr.json`, "utf8"));
    equal(written.attributes.ome.version, "0.5", "npx zarr-wasm convert wrote OME-Zarr 0.5");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
