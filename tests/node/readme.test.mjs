// The documentation's shape (issue 34): README.md stays short (at most 300 lines), and no relative
// link in README.md, CONTRIBUTING.md, CHANGELOG.md, docs/*.md (not the generated docs/api/) or
// pkg/README.md is broken. A link resolves when the file it names exists, relative to the file that
// links it, and its #fragment (if any) is the slug of a heading of that file under GitHub's rules.
// pkg/README.md is the npm package's README, read where the package is installed: it may link only
// files the package holds (`files` in pkg/package.json, and package.json and README.md).
// External links (http:, https:, mailto:) are not followed: the tests have no network.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { linkProblems, relativeLinks } from "../support/links.mjs";

const repo = new URL("../../", import.meta.url).pathname;

/** The files the npm package holds, as pkg/README.md may link them. */
function packageFiles(root) {
  const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
  return new Set([...(manifest.files ?? []), "package.json", "README.md"]);
}

const documents = () => [
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  ...readdirSync(join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
  "pkg/README.md",
];

test("readme: README.md is at most 300 lines", () => {
  const lines = readFileSync(join(repo, "README.md"), "utf8").replace(/\n$/, "").split("\n").length;
  assert.ok(lines <= 300, `README.md has ${lines} lines; the guides in docs/ take the rest`);
});

test("readme: every relative link in the README, CONTRIBUTING, CHANGELOG, docs/*.md and pkg/README.md resolves", (t) => {
  const packaged = packageFiles(repo);
  let links = 0;
  const problems = [];
  for (const file of documents()) {
    assert.ok(existsSync(join(repo, file)), `${file} exists`);
    links += relativeLinks(readFileSync(join(repo, file), "utf8")).length;
    problems.push(...linkProblems(repo, file, file === "pkg/README.md" ? packaged : undefined));
  }
  t.diagnostic(`${links} relative links in ${documents().length} files`);
  assert.ok(links > 50, `found ${links} relative links: the parser finds them`);
  assert.deepEqual(problems, []);
});

test("readme: the link check finds a missing file, a wrong fragment, and a package link outside `files`", () => {
  const root = mkdtempSync(join(tmpdir(), "zarr-wasm-readme-"));
  try {
    writeFileSync(
      join(root, "a.md"),
      "# Title\n\n## Why it's `fast`, and more\n\n## Why it's fast, and more\n",
    );
    writeFileSync(
      join(root, "README.md"),
      [
        "[good](a.md#why-its-fast-and-more) [repeat](a.md#why-its-fast-and-more-1) [self](#title-here)",
        "# Title here",
        "[missing](b.md) [bad fragment](a.md#why-it-is-fast) [web](https://example.org/x.md)",
        "```sh",
        "[in code](nothing.md)",
        "```",
        "`[in a code span](nothing.md)`",
      ].join("\n"),
    );
    assert.deepEqual(linkProblems(root, "README.md"), [
      "README.md: (b.md): b.md does not exist",
      "README.md: (a.md#why-it-is-fast): no heading of a.md has the anchor #why-it-is-fast",
    ]);
    assert.deepEqual(linkProblems(root, "README.md", new Set(["README.md"])), [
      'README.md: (a.md#why-its-fast-and-more): a.md is not in the package (pkg/package.json "files")',
      'README.md: (a.md#why-its-fast-and-more-1): a.md is not in the package (pkg/package.json "files")',
      "README.md: (b.md): b.md does not exist",
      'README.md: (a.md#why-it-is-fast): a.md is not in the package (pkg/package.json "files")',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
