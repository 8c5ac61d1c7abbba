// FileSystemHandleStore in headless Chromium over the origin private file system (OPFS): arrays
// written (v3, sharded v3, v2) on the main thread (writables) and in a module worker (sync access
// handles), read back by zarr-wasm there and by zarr-python from the files copied out of OPFS;
// listing, ranges and erase; and writes interrupted mid-way, which leave the old value.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readBackWithZarrPython } from "../support/readback.mjs";
import { startServer } from "../support/server.mjs";
import { launchChromium, openPage } from "../support/browser.mjs";
import { ARRAYS, valuesOf } from "./opfs-arrays.js";

const repo = new URL("../../", import.meta.url).pathname;
const out = join(repo, "target/opfs-readback");
let server, browser, page;

before(async () => {
  server = await startServer({ mounts: { "/": repo } });
  browser = await launchChromium();
  ({ page } = await openPage(browser, `${server.url}/tests/browser/opfs.html`));
  page.on("console", (m) => m.type() === "log" && console.log(`chromium: ${m.text()}`));
  await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Copies OPFS folder `run` out of the page into `dir`, and has zarr-python read ARRAYS there. */
async function copyOutAndReadBack(run, dir) {
  const files = await page.evaluate(
    async (run) => window.opfs.files(await window.opfs.folderOf(run)),
    run,
  );
  rmSync(dir, { recursive: true, force: true });
  for (const [path, base64] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), Buffer.from(base64, "base64"));
  }
  const manifest = Object.entries(ARRAYS).map(([name, options]) => {
    const expected = join(dir, `${name}.expected`);
    const values = valuesOf(options.dtype, options.shape);
    writeFileSync(expected, new Uint8Array(values.buffer));
    return { store: dir, path: name, expected, dtype: options.dtype, shape: options.shape };
  });
  readBackWithZarrPython(manifest, join(dir, "manifest.json"));
}

test("opfs: arrays written through FileSystemHandleStore on the main thread (v3, sharded, v2) read back exactly, by zarr-wasm and by zarr-python; list, ranges and erase", async () => {
  const seen = await page.evaluate(async () => {
    const { zarr, opfs } = window;
    const dir = await opfs.folder("main");
    const store = new zarr.FileSystemHandleStore(dir);
    const problems = await opfs.writeAndRead(store);
    const listed = await store.list("");
    const chunk = await store.get("plain/c/0/0");
    const range = await store.getRange("plain/c/0/0", { offset: 3, length: 5 });
    const suffix = await store.getRange("plain/c/0/0", { suffixLength: 4 });
    const missing = [await store.get("plain/c/9/9"), await store.list("nothing/here")];
    return {
      problems,
      syncAccessHandles: store.syncAccessHandles,
      url: store.url,
      listed,
      rangeOk: range.join() === chunk.subarray(3, 8).join(),
      suffixOk: suffix.join() === chunk.subarray(chunk.length - 4).join(),
      missing: missing.map(String),
    };
  });
  assert.deepEqual(seen.problems, []);
  assert.equal(seen.syncAccessHandles, false, "writables on the main thread");
  assert.equal(seen.url, "file-system-handle:main");
  assert.deepEqual(seen.listed, ["plain", "sharded", "v2", "zarr.json"]);
  assert.ok(seen.rangeOk && seen.suffixOk, "ranges and suffix ranges");
  assert.deepEqual(seen.missing, ["undefined", "undefined"], "a missing key and folder");
  await copyOutAndReadBack("main", join(out, "main"));

  const erased = await page.evaluate(async () => {
    const { zarr, opfs } = window;
    const dir = await opfs.folderOf("main");
    const store = new zarr.FileSystemHandleStore(dir);
    await zarr.erase(store, "sharded");
    const error = await zarr.open(store, { path: "sharded" }).then(
      () => "opened",
      (e) => e.name,
    );
    return { names: await opfs.names(dir), error };
  });
  assert.equal(erased.error, "NotFoundError", "the erased array is gone");
  assert.ok(
    !erased.names.some((n) => n.startsWith("sharded/") && !n.endsWith("/")),
    `no file of the erased array left: ${erased.names.filter((n) => n.startsWith("sharded"))}`,
  );
});

test("opfs: a write interrupted mid-way leaves the old value: a 64 MiB set aborted as it is written, and an array's set aborted among its chunks at five moments (every chunk old or new, never torn), no temporary file left", async () => {
  const seen = await page.evaluate(async () => {
    const { zarr, opfs } = window;
    const dir = await opfs.folder("interrupted");
    const store = new zarr.FileSystemHandleStore(dir);
    const interrupted = await opfs.interruptedSet(store, dir);
    const values = new Uint16Array(2048 * 2048).map((_, k) => (k * 2654435761) >>> 20);
    // The abort comes at five moments, each in a chunk's write at another step (its writable
    // opened, written, closed, moved): an aborted write's temporary file was left in 1 of 10
    // (its lock released a moment after the writable's abort).
    const runs = [];
    for (const delay of [30, 45, 60, 75, 90]) {
      // 8 chunks of 1 MiB, gzip: the abort comes while they are encoded and stored.
      const path = `big${delay}`;
      const arr = await zarr.create(store, {
        path,
        shape: [2048, 2048],
        dtype: "uint16",
        chunks: [512, 1024],
        codecs: [
          { name: "bytes", configuration: { endian: "little" } },
          { name: "gzip", configuration: { level: 6 } },
        ],
      });
      const stop = new AbortController();
      const writing = arr.set(null, values, { signal: stop.signal });
      setTimeout(() => stop.abort(), delay);
      const error = await writing.then(
        () => null,
        (e) => e.name,
      );
      // Listed at once: the set's promise settles once its store calls have.
      const names = (await opfs.names(dir)).filter((n) => /crswap|partial/.test(n));
      const { data } = await (await zarr.open(store, { path, kind: "array" })).get();
      let written = 0;
      let torn = 0;
      for (let ci = 0; ci < 4; ci++)
        for (let cj = 0; cj < 2; cj++) {
          let fresh = true;
          let fill = true;
          for (let i = ci * 512; i < ci * 512 + 512; i++)
            for (let j = cj * 1024; j < cj * 1024 + 1024; j++) {
              const k = i * 2048 + j;
              fresh &&= data[k] === values[k];
              fill &&= data[k] === 0;
            }
          if (fresh) written++;
          else if (!fill) torn++;
        }
      runs.push({ delay, error, written, torn, names });
    }
    return { interrupted, runs };
  });
  assert.match(seen.interrupted.error, /^AbortError/, "the 64 MiB set rejects with an AbortError");
  assert.deepEqual(seen.interrupted.after, [1, 2, 3], "the old value stays");
  assert.deepEqual(seen.interrupted.listed, ["value"], "the listing shows the key alone");
  for (const run of seen.runs) {
    const at = `aborted after ${run.delay} ms`;
    // A machine fast enough to write all 8 chunks first has nothing to abort.
    if (run.written < 8) assert.equal(run.error, "AbortError", `${at}: rejects with an AbortError`);
    assert.equal(run.torn, 0, `${at}: no chunk holds part of the new values`);
    assert.deepEqual(run.names, [], `${at}: no temporary file left`);
  }
  assert.ok(
    seen.runs.some((r) => r.error === "AbortError" && r.written < 8),
    `an abort came before the last chunk: ${JSON.stringify(seen.runs)}`,
  );
});

test("opfs: in a module worker, FileSystemHandleStore writes through sync access handles: the arrays read back exactly there, on the main thread and by zarr-python; an interrupted write leaves the old value and no temporary file", async () => {
  const seen = await page.evaluate(() => window.inWorker("worker"));
  assert.equal(seen.error, undefined, seen.error);
  assert.equal(seen.syncAccessHandles, true, "sync access handles in the worker");
  assert.deepEqual(seen.problems, []);
  assert.match(seen.interrupted.error, /^AbortError/);
  assert.deepEqual(seen.interrupted.after, [1, 2, 3], "the old value stays");
  assert.deepEqual(
    seen.names.filter((n) => /crswap|partial/.test(n)),
    [],
    "no temporary file left",
  );
  const onMain = await page.evaluate(async () => {
    const { zarr, opfs } = window;
    const store = new zarr.FileSystemHandleStore(await opfs.folderOf("worker"));
    const problems = [];
    for (const [name, options] of Object.entries(opfs.ARRAYS)) {
      const { data } = await (await zarr.open(store, { path: name, kind: "array" })).get();
      const want = opfs.valuesOf(options.dtype, options.shape);
      if (data.join() !== want.join()) problems.push(name);
    }
    return problems;
  });
  assert.deepEqual(onMain, [], "the main thread reads what the worker wrote");
  await copyOutAndReadBack("worker", join(out, "worker"));
});

test("opfs: a write past the origin's quota (Chromium's quota made 6 MiB through DevTools) rejects with a StoreError naming the chunk and the quota; the chunks stored before it read back, and no temporary file is left", async () => {
  // A browser of its own: where another page of the browser had written to the origin's file
  // system first, writes went on past the overridden quota (Chromium 156 keeps the room it had
  // granted). The quota is set once the page has opened its folder: `estimate()` does not show it,
  // but writes meet it.
  const quotaBrowser = await launchChromium();
  const quotaPage = await quotaBrowser.newPage();
  const cdp = await quotaPage.context().newCDPSession(quotaPage);
  const origin = new URL(server.url).origin;
  await quotaPage.goto(`${server.url}/tests/browser/opfs.html`);
  await quotaPage.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
  await quotaPage.evaluate(() => window.opfs.folder("quota"));
  await cdp.send("Storage.overrideQuotaForOrigin", { origin, quotaSize: 6 << 20 });
  // Chromium counts what a write adds to the origin's usage some time after the write (on a loaded
  // machine, after a whole array of 1 MiB chunks had been let through). So the room is used up
  // beforehand by a 5.5 MiB ballast file, and the test waits until a 1 MiB file is refused: the
  // override has taken effect and the ballast is counted. The array's first rows then compress to
  // a few bytes and fit; its later rows are noise, 1 MiB each, and none can fit whatever Chromium
  // has counted of the rows before.
  const refusedProbe = await quotaPage.evaluate(async () => {
    const dir = await window.opfs.folderOf("quota");
    const ballast = await (await dir.getFileHandle("ballast", { create: true })).createWritable();
    await ballast.write(new Uint8Array(11 << 19));
    await ballast.close();
    for (let tries = 0; tries < 100; tries++) {
      const handle = await dir.getFileHandle("probe", { create: true });
      const writable = await handle.createWritable();
      try {
        await writable.write(new Uint8Array(1 << 20));
        await writable.close();
      } catch (e) {
        await writable.abort().catch(() => {});
        await dir.removeEntry("probe").catch(() => {});
        if (e.name === "QuotaExceededError") return true;
        throw e;
      }
      await dir.removeEntry("probe");
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  });
  assert.ok(refusedProbe, "the quota override and the ballast took effect within 10 s");
  try {
    const seen = await quotaPage.evaluate(async () => {
      const { zarr, opfs } = window;
      const dir = await opfs.folderOf("quota");
      const store = new zarr.FileSystemHandleStore(dir);
      // 16 chunks of 1 MiB, zstd: rows 0-7 hold one value each, rows 8-15 noise.
      const arr = await zarr.create(store, {
        path: "array",
        shape: [16, 1 << 19],
        dtype: "uint16",
        chunks: [1, 1 << 19],
        codecs: [
          { name: "bytes", configuration: { endian: "little" } },
          { name: "zstd", configuration: { level: 1 } },
        ],
      });
      let seed = 12345;
      const values = new Uint16Array(16 << 19).map((_, k) => {
        const row = k >> 19;
        if (row < 8) return row + 1;
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return 1 + ((seed >>> 16) % 65535);
      });
      // One chunk at a time, in order: the rows that fit are all written before the first row
      // of noise is refused, and nothing after it.
      const error = await arr.set(null, values, { concurrency: 1 }).then(
        () => null,
        (e) => ({ name: e.name, message: e.message }),
      );
      const { data } = await (await zarr.open(store, { path: "array", kind: "array" })).get();
      const rows = [];
      for (let r = 0; r < 16; r++) {
        const row = data.subarray(r << 19, (r + 1) << 19);
        const want = values.subarray(r << 19, (r + 1) << 19);
        rows.push(
          row.every((v, k) => v === want[k]) ? "new" : row.every((v) => v === 0) ? "fill" : "torn",
        );
      }
      return { error, rows, names: await opfs.names(dir) };
    });
    assert.equal(seen.error?.name, "StoreError", JSON.stringify(seen.error));
    assert.match(seen.error.message, /array\/c\/8\/0/, "names the first chunk of noise");
    assert.match(seen.error.message, /quota/i, "says it is the quota");
    assert.deepEqual(seen.rows.slice(0, 8), Array(8).fill("new"), "the rows that fit were stored");
    assert.deepEqual(seen.rows.slice(8), Array(8).fill("fill"), "no row of noise was stored");
    assert.deepEqual(
      seen.names.filter((n) => /crswap|partial/.test(n)),
      [],
      "no temporary file left",
    );
  } finally {
    await cdp.send("Storage.overrideQuotaForOrigin", { origin });
    await quotaPage.evaluate(async () => {
      await (await navigator.storage.getDirectory()).removeEntry("quota", { recursive: true });
    });
    await quotaBrowser.close();
  }
});
