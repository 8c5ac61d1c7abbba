// The API reference (docs/api/): TypeDoc (pinned in package.json) over the package's declarations,
// pkg/index.d.ts ("zarr-wasm"), pkg/zarrita.d.ts ("zarr-wasm/zarrita"), pkg/viv.d.ts
// ("zarr-wasm/viv") and pkg/fs.d.ts ("zarr-wasm/fs"). `node scripts/build-docs.mjs [outDir]` (or `npm run docs`);
// tests/node/docs.test.mjs builds it and checks every link in it.
import { Application } from "typedoc";

const repo = new URL("..", import.meta.url).pathname;
const out = process.argv[2] ?? `${repo}docs/api`;

const app = await Application.bootstrap({
  entryPoints: ["index.d.ts", "zarrita.d.ts", "viv.d.ts", "fs.d.ts"].map((f) => `${repo}pkg/${f}`),
  tsconfig: `${repo}docs/tsconfig.json`,
  name: "zarr-wasm",
  readme: "none",
  // No time stamps, no source links to a repository URL this project does not have yet: the
  // same declarations give the same pages.
  disableSources: true,
  disableGit: true,
  hideGenerator: true,
  includeVersion: false,
  excludePrivate: true,
  validation: { notExported: true, invalidLink: true, notDocumented: false },
  treatWarningsAsErrors: true,
  logLevel: "Warn",
});
const project = await app.convert();
if (!project || app.logger.hasErrors() || app.logger.hasWarnings()) {
  console.error("build-docs: TypeDoc reported problems (above)");
  process.exit(1);
}
await app.generateDocs(project, out);
if (app.logger.hasErrors() || app.logger.hasWarnings()) process.exit(1);
console.log(`build-docs: ${out}`);
