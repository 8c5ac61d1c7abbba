// The viewer's "Save as OME-Zarr" (www/save.js on zarr-wasm/convert), as a person uses it: the
// webpack build of www/ showing the large sample (www/data/large.ome.zarr: 2 channels x 3 planes
// x 8192 x 8192 uint16, 6 levels, written by zarr-python; scripts/make_sample.sh large), the
// button clicked, the image written into the origin private file system (`?save=opfs`: a
// headless browser has no folder picker to answer) as sharded Zarr v3 with OME-Zarr 0.5, every
// level. The page then copies the files out (PUT to the test server) and zarr-python reads every
// level and compares it with the sample. A second save is cancelled part way: it ends at once
// and leaves no file torn. A screenshot of the save is kept for the README.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { checkConversionWithZarrPython, sameAsSource } from "../support/readback.mjs";
import { startServer } from "../support/server.mjs";
import { launchChromium, openPage } from "../support/browser.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const sample = join(repo, "www/data/large.ome.zarr");
const uploads = join(repo, "target/save-upload");
let server, browser, page, errors;

before(async () => {
  assert.ok(existsSync(join(sample, "zarr.json")), "scripts/make_sample.sh large made the sample");
  rmSync(uploads, { recursive: true, force: true });
  server = await startServer({
    mounts: { "/": `${repo}/www/dist`, "/data/": `${repo}/www/data` },
    uploads,
  });
  browser = await launchChromium();
  ({ page, errors } = await openPage(browser, `${server.url}/?save=opfs`));
  await page.setViewportSize({ width: 1200, height: 800 });
  await page.waitForSelector("body[data-state=drawn]", { timeout: 60000 });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Clicks the save button and follows the progress bar until the save ends. */
async function save({ cancelAt = null } = {}) {
  await page.click("#save");
  const seen = [];
  for (;;) {
    const state = await page.evaluate(() => ({
      save: document.body.dataset.save,
      value: document.getElementById("save-progress").value,
      text: document.getElementById("save-status").textContent,
      bar: !document.getElementById("saving").hidden,
    }));
    if (state.save !== "saving") return { seen, state };
    seen.push(state);
    if (cancelAt !== null && state.text.startsWith("Writing") && state.value >= cancelAt) {
      await page.click("#save-cancel");
      cancelAt = null;
    }
    if (seen.length === 40 && !cancelAt)
      await page.screenshot({ path: `${repo}/test-results/save.png` });
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("save: the large sample saved as OME-Zarr 0.5 (sharded Zarr v3, every level) into OPFS with a progress bar, then read by zarr-python level by level", async () => {
  mkdirSync(`${repo}/test-results`, { recursive: true });
  const { seen, state } = await save();
  const result = await page.evaluate(() => window.viewer.lastSave);
  assert.equal(result.error, undefined, JSON.stringify(result));
  assert.equal(state.save, "done", state.text);
  assert.match(
    state.text,
    /^Saved 6 arrays \(1024 MiB\) as OME-Zarr 0\.5 to OPFS: large\.ome\.zarr in [\d.]+ s, read back and checked\.$/,
  );
  const values = seen.map((s) => s.value);
  assert.ok(
    seen.every((s) => s.bar),
    "the progress bar shows while it saves",
  );
  assert.ok(
    values.some((v) => v > 0.05 && v < 0.95),
    `the bar moved: ${values.slice(0, 20)}`,
  );
  assert.ok(
    seen.some((s) => s.text.startsWith("Checking")),
    "the copy is read back",
  );

  // The files out of OPFS, to the test server, for zarr-python.
  const copied = await page.evaluate(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle(
      "large.ome.zarr",
    );
    let files = 0;
    const walk = async (dir, prefix) => {
      for await (const [name, handle] of dir.entries()) {
        if (handle.kind === "directory") await walk(handle, `${prefix}${name}/`);
        else {
          const r = await fetch(`/__upload/large.ome.zarr/${prefix}${name}`, {
            method: "PUT",
            body: await handle.getFile(),
          });
          if (!r.ok) throw new Error(`upload ${prefix}${name}: ${r.status}`);
          files++;
        }
      }
    };
    await walk(root, "");
    return files;
  });
  assert.ok(copied > 20, `${copied} files`);
  const dst = join(uploads, "large.ome.zarr");
  const ome = JSON.parse(readFileSync(join(sample, "zarr.json"), "utf8")).attributes.ome;
  const levels = ome.multiscales[0].datasets.map((d) => d.path);
  const manifest = sameAsSource(dst, sample, levels, { zarr_format: 3, codec: "zstd" });
  // Inner chunks of 256 x 256 kept; shards of 4096 x 4096, the last levels' as large as they are.
  Object.assign(manifest[0], { chunks: [1, 1, 256, 256], shards: [1, 1, 4096, 4096] });
  Object.assign(manifest[5], { shards: [1, 1, 256, 256] });
  manifest.push({ kind: "group", dst, path: "", attrs: { ome } });
  checkConversionWithZarrPython(manifest, join(uploads, "manifest.json"));
  // The converter's two probes answered 404, which the browser logs: a listing of the image's
  // directory (plain HTTP cannot list, so the OME-Zarr metadata names the levels) and the
  // `labels` group the sample does not have.
  const probes = [
    /404.*\/data\/large\.ome\.zarr\]$/,
    /404.*\/data\/large\.ome\.zarr\/labels\/zarr\.json\]$/,
  ];
  assert.deepEqual(
    errors.filter((e) => !probes.some((p) => p.test(e))),
    [],
  );
});

test("save: cancelled part way, the save ends within a second, says so, and leaves no temporary file", async () => {
  const { state } = await save({ cancelAt: 0.1 });
  assert.equal(state.save, "done", state.text);
  assert.equal(state.text, "Save cancelled: every file written is whole.");
  const left = await page.evaluate(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle(
      "large.ome.zarr",
    );
    const names = [];
    const walk = async (dir, prefix) => {
      for await (const [name, handle] of dir.entries()) {
        if (handle.kind === "directory") await walk(handle, `${prefix}${name}/`);
        else names.push(`${prefix}${name}`);
      }
    };
    await walk(root, "");
    return names;
  });
  assert.ok(left.length > 0, "it had written some files");
  assert.deepEqual(
    left.filter((n) => /partial|crswap/.test(n)),
    [],
    "no temporary file",
  );
});
