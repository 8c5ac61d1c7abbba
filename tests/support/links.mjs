// Relative links in Markdown, checked as GitHub renders them: each names a file that exists, and
// its #fragment the anchor of one of that file's headings (repeated headings numbered). Used by
// tests/node/readme.test.mjs (the documentation) and tests/node/docs.test.mjs (docs/api).
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

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
    // HTML anchors (`<a id="...">`, as the generated API reference writes them) too.
    for (const [, id] of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(id);
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
export function relativeLinks(text) {
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
export function linkProblems(root, file, packaged) {
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
