// The API reference (docs/api/, committed: read on the repository without building anything):
// TypeDoc and typedoc-plugin-markdown (pinned in package.json) over the package's declarations,
// pkg/index.d.ts ("zarr-wasm"), pkg/zarrita.d.ts ("zarr-wasm/zarrita"), pkg/viv.d.ts
// ("zarr-wasm/viv"), pkg/ome.d.ts ("zarr-wasm/ome"), pkg/convert.d.ts ("zarr-wasm/convert") and pkg/fs.d.ts ("zarr-wasm/fs"), as Markdown, a page per module.
// `node scripts/build-docs.mjs [outDir]` (or `npm run docs`) after changing a declaration;
// tests/node/docs.test.mjs builds it elsewhere, fails when the committed pages differ, and checks
// every link in them. Every declaration must have a doc comment (TypeDoc's notDocumented).
import { rmSync } from "node:fs";
import { Application } from "typedoc";

const repo = new URL("..", import.meta.url).pathname;
const out = process.argv[2] ?? `${repo}docs/api`;

const app = await Application.bootstrapWithPlugins({
  entryPoints: [
    "index.d.ts",
    "zarrita.d.ts",
    "viv.d.ts",
    "ome.d.ts",
    "convert.d.ts",
    "fs.d.ts",
  ].map((f) => `${repo}pkg/${f}`),
  tsconfig: `${repo}docs/tsconfig.json`,
  name: "zarr-wasm",
  readme: "none",
  plugin: ["typedoc-plugin-markdown"],
  outputs: [{ name: "markdown", path: out }],
  outputFileStrategy: "modules",
  hidePageHeader: true,
  hideBreadcrumbs: true,
  // Its own anchors beside the headings: the ids it numbers for repeated names are not always
  // those GitHub gives the headings.
  useHTMLAnchors: true,
  // No time stamps, no source links to a repository URL this project does not have yet: the
  // same declarations give the same pages.
  disableSources: true,
  disableGit: true,
  hideGenerator: true,
  includeVersion: false,
  excludePrivate: true,
  // Not what the classes inherit from the platform (Error's stack trace hooks).
  excludeExternals: true,
  validation: { notExported: true, invalidLink: true, notDocumented: true },
  treatWarningsAsErrors: true,
  logLevel: "Warn",
});
const project = await app.convert();
if (!project || app.logger.hasErrors() || app.logger.hasWarnings()) {
  console.error("build-docs: TypeDoc reported problems (above)");
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
await app.generateOutputs(project);
if (app.logger.hasErrors() || app.logger.hasWarnings()) process.exit(1);
console.log(`build-docs: ${out}`);
