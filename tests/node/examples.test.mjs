// Every code example a newcomer reads: each ```js and ```ts block of README.md, CONTRIBUTING.md,
// docs/*.md and the package's README is taken out as a module of its own, type-checked with
// `tsc --strict` against the package's declarations (as a TypeScript app would see them: ts
// blocks as TypeScript, js blocks with checkJs), and then run in Node against the test server,
// with the documents' example URLs pointing at the bundled sample and the test fixtures. A block
// that cannot run in Node (it draws in a page, or needs credentials) says why in its first line
// (`// not run: <reason>`); it is still type-checked.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import ts from "typescript";
import { startServer } from "../support/server.mjs";

const repo = new URL("../../", import.meta.url).pathname;
// Under the repository, so that "zarr-wasm" (node_modules/zarr-wasm -> pkg/) and the other
// packages the examples import resolve as in an app.
const out = `${repo}target/examples`;

/** The documents whose examples are checked. */
function documents() {
  const docs = readdirSync(`${repo}docs`)
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  return ["README.md", "CONTRIBUTING.md", "pkg/README.md", ...docs];
}

/** The ```js and ```ts blocks of `file`: `{ name, lang, code, line }`. */
function examples(file) {
  const text = readFileSync(`${repo}${file}`, "utf8");
  const found = [];
  const fence = /^(\s*)```([\w-]*)[^\n]*\n([\s\S]*?)^\1```\s*$/gm;
  for (const m of text.matchAll(fence)) {
    const lang = { js: "js", javascript: "js", ts: "ts", typescript: "ts" }[m[2]];
    if (!lang) continue;
    const line = text.slice(0, m.index).split("\n").length;
    // Indented blocks (in a list) lose their indentation.
    const code = m[3].replace(new RegExp(`^${m[1]}`, "gm"), "");
    found.push({ name: `${file.replace(/[/.]/g, "_")}_L${line}`, lang, code, line, file });
  }
  return found;
}

const all = documents().flatMap(examples);
let server;
before(async () => {
  server = await startServer({ mounts: { "/": repo } });
});
after(() => server?.close());

test("examples: the documents have code examples, and each says whether it runs", () => {
  assert.ok(all.length >= 10, `only ${all.length} js/ts examples found`);
  for (const e of all) {
    const first = e.code.split("\n")[0];
    if (/not run/.test(first))
      assert.match(first, /^\/\/ not run: \S.{8,}/, `${e.file}:${e.line} says why it is not run`);
  }
});

test("examples: every js and ts example compiles under tsc --strict against the package's types, with TypeScript 5.9 and 7.0", () => {
  rmSync(`${out}/check`, { recursive: true, force: true });
  mkdirSync(`${out}/check`, { recursive: true });
  writeFileSync(`${out}/check/package.json`, '{ "type": "module" }\n');
  const files = all.map((e) => {
    const file = `${e.name}.${e.lang === "ts" ? "ts" : "mjs"}`;
    // A module even without imports (top-level await needs one).
    writeFileSync(`${out}/check/${file}`, `${e.code}\nexport {};\n`);
    return file;
  });
  writeFileSync(
    `${out}/check/tsconfig.json`,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "es2022",
        // As a web app's tsconfig has it (Vite's templates): modules resolved as a bundler
        // does, other packages' declarations not checked (ours are, in types.test.mjs).
        module: "esnext",
        moduleResolution: "bundler",
        lib: ["es2022", "dom", "dom.iterable"],
        types: ["node"],
        allowJs: true,
        checkJs: true,
        noEmit: true,
        skipLibCheck: true,
      },
      files,
    }),
  );
  // Both compilers users have: TypeScript 5.9 (the JavaScript one) and 7.0 (the native one,
  // installed as typescript7).
  // Errors name the block's file and line in its document.
  const where = (line) =>
    line.replace(/^(?:\S*\/)?([^/\s]+?)\.(m?js|ts)\((\d+),\d+\)/, (_, name, _ext, l) => {
      const e = all.find((x) => x.name === name);
      return e ? `${e.file}:${e.line + Number(l)}` : line;
    });
  for (const compiler of ["typescript", "typescript7"]) {
    const tsc = spawnSync(
      process.execPath,
      [`${repo}node_modules/${compiler}/bin/tsc`, "-p", `${out}/check`],
      { encoding: "utf8" },
    );
    const version = JSON.parse(
      readFileSync(`${repo}node_modules/${compiler}/package.json`, "utf8"),
    ).version;
    assert.equal(
      tsc.status,
      0,
      `TypeScript ${version}:\n${tsc.stdout.split("\n").map(where).join("\n")}${tsc.stderr}`,
    );
  }
});

test("examples: every example that runs in Node runs, against the test server", async () => {
  rmSync(`${out}/run`, { recursive: true, force: true });
  mkdirSync(`${out}/run`, { recursive: true });
  const urls = [
    ["https://example.org/image.ome.zarr", `${server.url}/www/data/sample.ome.zarr`],
    ["https://example.org/cells.ome.zarr", `${server.url}/tests/fixtures/ome/ome_zarr_py_04.zarr`],
    ["https://example.org/data.zarr", `${server.url}/tests/fixtures/v3.zarr`],
    ["https://example.org/references/", `${server.url}/tests/fixtures/references/`],
    ["https://example.org/icechunk/", `${server.url}/tests/fixtures/icechunk/`],
  ];
  const ran = [];
  const failed = [];
  for (const e of all) {
    if (/^\/\/ not run:/.test(e.code)) continue;
    let code = e.code;
    for (const [from, to] of urls) code = code.replaceAll(from, to);
    if (e.lang === "ts")
      code = ts.transpileModule(code, {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      }).outputText;
    const file = `${out}/run/${e.name}.mjs`;
    writeFileSync(file, code);
    try {
      await promisify(execFile)(process.execPath, [file], { timeout: 60_000, cwd: `${out}/run` });
      ran.push(e);
    } catch (err) {
      failed.push(`${e.file}:${e.line}: ${err.stderr || err.message}`.slice(0, 2000));
    }
  }
  assert.deepEqual(failed, [], `${failed.length} examples failed`);
  assert.ok(ran.length * 2 >= all.length, `most examples run: ${ran.length} of ${all.length} did`);
  const readme = ran.filter((e) => e.file === "README.md").length;
  assert.ok(readme >= 2, `the README's first reads run (${readme} did)`);
});
