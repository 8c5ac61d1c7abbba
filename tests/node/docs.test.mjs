// The API reference, docs/api/ (committed Markdown, read on the repository without building):
// scripts/build-docs.mjs builds it from the package's declarations with TypeDoc and
// typedoc-plugin-markdown (pinned), failing on any warning (a declaration without a doc comment,
// a broken {@link}, an unexported type). Built again here into a directory of its own, it must be
// what is committed (a declaration changed without `npm run docs` fails), and no relative link in
// it is broken: each names a file that exists, and each #fragment a heading's anchor there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linkProblems, relativeLinks } from "../support/links.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const committed = join(repo, "docs/api");

/** The Markdown files below `dir`, relative to it, sorted. */
const pagesOf = (dir) =>
  readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith(".md"))
    .sort();

test("docs: docs/api is what scripts/build-docs.mjs builds from the declarations today, every declaration documented, no link in it broken", (t) => {
  const out = mkdtempSync(join(tmpdir(), "zarr-wasm-api-"));
  try {
    const built = spawnSync(process.execPath, [join(repo, "scripts/build-docs.mjs"), out], {
      encoding: "utf8",
    });
    assert.equal(built.status, 0, built.stdout + built.stderr);
    const fresh = pagesOf(out);
    assert.deepEqual(pagesOf(committed), fresh, "docs/api has the pages the build makes");
    const stale = fresh.filter(
      (f) => readFileSync(join(out, f), "utf8") !== readFileSync(join(committed, f), "utf8"),
    );
    assert.deepEqual(stale, [], "docs/api is stale: run `npm run docs` and commit docs/api");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  // A page per module, and the API's main names on them.
  const pages = pagesOf(committed);
  for (const [page, names] of Object.entries({
    "zarr-wasm.md": ["open", "create", "ZarrArray", "FetchStore", "bytesDecoder", "WorkerPool"],
    "zarr-wasm/zarrita.md": ["registerCodecs", "zarritaStore", "mergeRanges"],
    "zarr-wasm/viv.md": ["openPixelSources", "PixelSource"],
    "zarr-wasm/ome.md": ["openImage", "OmeImage", "Level", "Channel"],
    "zarr-wasm/convert.md": ["convert", "parseCodec", "ConvertOptions"],
    "zarr-wasm/fs.md": ["FileSystemStore"],
  })) {
    assert.ok(existsSync(join(committed, page)), `${page} exists`);
    const text = readFileSync(join(committed, page), "utf8");
    for (const name of names)
      assert.match(text, new RegExp(`^#+ ${name}\\b`, "m"), `${page} has a heading for ${name}`);
  }
  // The public declarations only: the package's own hooks (for its workers, benchmarks and
  // tests) are not in the reference.
  const hook = /__(trapForTests|timingsForBench|openReplaying|keepShardIndexes)/;
  assert.deepEqual(
    pages.filter((p) => hook.test(readFileSync(join(committed, p), "utf8"))),
    [],
    "no page names an internal hook",
  );
  const problems = [];
  let links = 0;
  for (const page of pages) {
    const file = join("docs/api", page);
    links += relativeLinks(readFileSync(join(repo, file), "utf8")).length;
    problems.push(...linkProblems(repo, file));
  }
  assert.deepEqual(problems, [], "broken links");
  assert.ok(links > 300, `${links} relative links checked`);
  t.diagnostic(`${pages.length} pages, ${links} relative links`);
});
