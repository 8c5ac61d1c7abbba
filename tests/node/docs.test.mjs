// The API reference: scripts/build-docs.mjs builds docs/api from the package's declarations with
// TypeDoc (pinned), failing on any warning (a broken {@link}, an unexported type); every page it
// writes is then checked for broken links: each relative link names a file that exists, and each
// #fragment an id on that page. External links are only listed (the tests have no network).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const repo = new URL("../../", import.meta.url).pathname;
const out = join(repo, "docs/api");

test("docs: scripts/build-docs.mjs builds the API reference into docs/api, and no link in it is broken", (t) => {
  rmSync(out, { recursive: true, force: true });
  const built = spawnSync(process.execPath, [join(repo, "scripts/build-docs.mjs")], {
    encoding: "utf8",
  });
  assert.equal(built.status, 0, built.stdout + built.stderr);
  const pages = readdirSync(out, { recursive: true })
    .filter((f) => f.endsWith(".html"))
    .map((f) => join(out, f));
  // A page per module, and the API's main names each on a page of its own.
  for (const page of [
    "modules/zarr-wasm.html",
    "modules/zarr-wasm_zarrita.html",
    "modules/zarr-wasm_viv.html",
    "modules/zarr-wasm_fs.html",
    "functions/zarr-wasm.open.html",
    "functions/zarr-wasm.bytesDecoder.html",
    "functions/zarr-wasm_zarrita.registerCodecs.html",
    "functions/zarr-wasm_viv.openPixelSources.html",
    "classes/zarr-wasm_viv.PixelSource.html",
    "classes/zarr-wasm.ZarrArray.html",
    "classes/zarr-wasm.FetchStore.html",
  ]) {
    assert.ok(existsSync(join(out, page)), `${page} exists`);
  }
  // The public declarations only: the package's own hooks (for its workers, benchmarks and
  // tests) are not in the reference.
  const hook = /__(trapForTests|timingsForBench|openReplaying|keepShardIndexes)/;
  const hooks = pages.filter((p) => hook.test(readFileSync(p, "utf8")));
  assert.deepEqual(
    hooks.map((p) => relative(out, p)),
    [],
    "no page names an internal hook",
  );
  const ids = new Map(); // page -> its ids
  const idsOf = (page) => {
    if (!ids.has(page)) {
      const html = readFileSync(page, "utf8");
      ids.set(page, new Set([...html.matchAll(/\s(?:id|name)="([^"]+)"/g)].map((m) => m[1])));
    }
    return ids.get(page);
  };
  const broken = [];
  const external = new Set();
  let checked = 0;
  let withFragment = 0;
  for (const page of pages) {
    const html = readFileSync(page, "utf8");
    for (const [, link] of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      if (/^(https?:|mailto:)/.test(link)) {
        external.add(link);
        continue;
      }
      const [path, fragment] = link.split("#");
      const target = path === "" ? page : join(dirname(page), decodeURIComponent(path));
      checked++;
      if (fragment) withFragment++;
      if (!existsSync(target)) broken.push(`${relative(out, page)}: ${link} (no such file)`);
      else if (
        fragment &&
        target.endsWith(".html") &&
        !idsOf(target).has(decodeURIComponent(fragment))
      )
        broken.push(`${relative(out, page)}: ${link} (no id "${fragment}")`);
    }
  }
  assert.deepEqual(broken, [], "broken links");
  assert.ok(
    pages.length >= 60 && checked > 1000,
    `${pages.length} pages, ${checked} links checked`,
  );
  for (const link of external) assert.match(link, /^https:\/\//, "external links are https");
  t.diagnostic(`${pages.length} pages, ${checked} relative links, ${withFragment} with a fragment`);
});
