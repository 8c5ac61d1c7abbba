// The wasm modules' size budgets (bench/budgets.mjs), checked on the modules this run built: a
// module that grows past its budget fails the test command, not only `npm run bench`.
import { test } from "node:test";
import { ok } from "node:assert/strict";
import { readFileSync } from "node:fs";
import { sizeBudgets } from "../../bench/budgets.mjs";

for (const { what, file, bytes, budget } of sizeBudgets()) {
  test(`size: ${file} (${what}) is within its budget`, () => {
    const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
    ok(bytes > 0, `${file} is empty`);
    ok(
      bytes <= budget,
      `${file} is ${kib(bytes)} gzipped, over its budget of ${kib(budget)}: make it smaller, or raise the budget in bench/budgets.mjs with the reason`,
    );
  });
}

// A page that reads downloads none of the writer: bundled with code splitting, an app that only
// reads loads its own chunk and a glue, never write.js (a chunk of its own, fetched at the first
// write) nor a chunk shared with it.
test("size: a page that only reads fetches no code of the writer (esbuild, splitting)", async () => {
  const { build } = await import("esbuild");
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { gzipSync } = await import("node:zlib");
  const dir = mkdtempSync(`${tmpdir()}/zarr-wasm-split-`);
  try {
    writeFileSync(
      `${dir}/app.js`,
      'import { open } from "zarr-wasm";\nconsole.log(await (await open("https://example.org/a.zarr")).get());\n',
    );
    const result = await build({
      entryPoints: [`${dir}/app.js`],
      nodePaths: [new URL("../../node_modules", import.meta.url).pathname],
      bundle: true,
      splitting: true,
      format: "esm",
      minify: true,
      platform: "browser",
      external: ["node:*"],
      loader: { ".wasm": "file" },
      outdir: `${dir}/out`,
      metafile: true,
      logLevel: "silent",
    });
    const outputs = result.metafile.outputs;
    const app = Object.keys(outputs).find((f) => outputs[f].entryPoint?.endsWith("app.js"));
    const fetched = outputs[app].imports.filter((i) => i.kind === "import-statement");
    ok(fetched.length === 0, `the app's chunk imports ${fetched.map((i) => i.path)} at once`);
    const writer = Object.keys(outputs).filter((f) =>
      Object.keys(outputs[f].inputs).some((i) => i.endsWith("pkg/write.js")),
    );
    ok(writer.length === 1 && writer[0] !== app, `write.js is bundled in ${writer}`);
    const dynamic = outputs[app].imports.filter((i) => i.kind === "dynamic-import");
    ok(
      dynamic.some((i) => i.path === writer[0]),
      "write.js is imported at the first write",
    );
    const kib = gzipSync(readFileSync(app), { level: 9 }).length / 1024;
    ok(kib < 17, `the app's chunk is ${kib.toFixed(1)} KiB gzipped`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
