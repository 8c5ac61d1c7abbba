// The documentation's shape (issue 34): README.md stays short (at most 300 lines), and no relative
// link in README.md, CONTRIBUTING.md, CHANGELOG.md, docs/*.md (not the generated docs/api/) or
// pkg/README.md is broken. A link resolves when the file it names exists, relative to the file that
// links it, and its #fragment (if any) is the slug of a heading of that file under GitHub's rules.
// pkg/README.md is the npm package's README, read where the package is installed: it may link only
// files the package holds (`files` in pkg/package.json, and package.json and README.md).
// External links (http:, https:, mailto:) are not followed: the tests have no network.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";

const repo = new URL("../../", import.meta.url).pathname;

/** The Markdown outside fenced code blocks, with inline code spans blanked. */
function prose(text) {
  const lines = [];
  let fence = null;
  for (const line of text.split("\n")) {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length) fence = null;
      lines.push("");
    } else if (open) {
      fence = open[1];
      lines.push("");
    } else {
      lines.push(line.replace(/(`+)[^`]*?\1/g, (m) => " ".repeat(m.length)));
    }
  }
  return lines.join("\n");
}

/** GitHub's anchor for a heading's text: lowercase, punctuation but '-' and '_' removed, spaces to '-'. */
function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link reads as its text
    .replace(/<[^>]+>/g, "") // inline HTML
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The anchors of a Markdown file's headings, repeated ones numbered as GitHub numbers them. */
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  let fence = null;
  for (const line of text.split("\n")) {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length) fence = null;
      continue;
    }
    if (open) {
      fence = open[1];
      continue;
    }
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative link targets of a Markdown text: inline links, images and reference definitions. */
function relativeLinks(text) {
  const body = prose(text);
  const targets = [];
  for (const m of body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(m[1]);
  }
  for (const m of body.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(m[1]);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith("//"));
}

/**
 * The problems with the relative links of `file` (a path below `root`); `packaged`, where given,
 * is the set of paths (relative to the file's directory) that the file may link.
 */
function linkProblems(root, file, packaged) {
  const text = readFileSync(join(root, file), "utf8");
  const problems = [];
  for (const target of relativeLinks(text)) {
    const hash = target.indexOf("#");
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const fragment = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    const resolved = path === "" ? join(root, file) : join(root, dirname(file), path);
    const where = `${file}: (${target})`;
    if (!existsSync(resolved)) {
      problems.push(`${where}: ${relative(root, resolved)} does not exist`);
      continue;
    }
    if (packaged) {
      const inPackage = relative(join(root, dirname(file)), resolved)
        .split(sep)
        .join("/");
      if (!packaged.has(inPackage)) {
        problems.push(`${where}: ${inPackage} is not in the package (pkg/package.json "files")`);
        continue;
      }
    }
    if (fragment !== null) {
      if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) {
        problems.push(`${where}: a #fragment on something that is not a Markdown file`);
      } else if (!anchors(readFileSync(resolved, "utf8")).has(fragment)) {
        problems.push(
          `${where}: no heading of ${relative(root, resolved)} has the anchor #${fragment}`,
        );
      }
    }
  }
  return problems;
}

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
