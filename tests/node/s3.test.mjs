// Writing to a real S3 implementation: moto's server (Python `moto[server]`, in .venv-readers),
// started here on 127.0.0.1 with a bucket that has CORS rules and a policy refusing PUTs below
// locked/. tests/cases/s3.mjs writes arrays through `FetchStore(url, { writable: true, fetch })`,
// every request signed by aws4fetch, in Node and in headless Chromium (a page of another origin);
// then zarr-python reads what each wrote from the bucket's objects.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { AwsClient } from "aws4fetch";
import * as zarr from "zarr-wasm";
import { runConvert } from "../support/cli.mjs";
import {
  checkConversionWithZarrPython,
  readBackWithZarrPython,
  readersPython,
  sameAsSource,
} from "../support/readback.mjs";
import { startServer } from "../support/server.mjs";
import { launchChromium, openPage } from "../support/browser.mjs";
import { ARRAYS, valuesOf } from "../browser/opfs-arrays.js";
import { writeToBucket } from "../cases/s3.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const out = join(repo, "target/s3-readback");
const aws = new AwsClient({
  accessKeyId: "zarr-wasm-test",
  secretAccessKey: "not-checked",
  service: "s3",
  region: "us-east-1",
});
let moto, bucket, server, browser;

/** A port free on 127.0.0.1 now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

before(async () => {
  const python = readersPython();
  const port = await freePort();
  moto = spawn(join(dirname(python), "moto_server"), ["-H", "127.0.0.1", "-p", String(port)], {
    // Its log of every request goes nowhere: a pipe nobody reads fills, and the server then
    // stops answering in the middle of a test.
    stdio: "ignore",
  });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let wait = 0; ; wait++) {
    const up = await fetch(`${endpoint}/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (wait > 200) throw new Error("moto's server did not start in 20 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  bucket = `${endpoint}/zarr`;
  const put = async (url, body) => {
    const r = await aws.fetch(url, { method: "PUT", body });
    assert.equal(r.status, 200, `${url}: ${await r.text()}`);
  };
  await put(bucket);
  await put(
    `${bucket}?cors`,
    "<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedMethod>PUT</AllowedMethod><AllowedMethod>DELETE</AllowedMethod><AllowedHeader>*</AllowedHeader><ExposeHeader>Content-Range</ExposeHeader><ExposeHeader>Content-Length</ExposeHeader><ExposeHeader>ETag</ExposeHeader></CORSRule></CORSConfiguration>",
  );
  await put(
    `${bucket}?policy`,
    JSON.stringify({
      Version: "2012-10-17",
      Statement: [
        // moto checks a preflight (OPTIONS) on an object against the object's ACL, as if it were a
        // request, where S3 answers preflights from the CORS rules alone: this lets everyone
        // "s3:OptionsObject", moto's name for it, so that its preflights answer as S3's do.
        {
          Effect: "Allow",
          Principal: "*",
          Action: "s3:OptionsObject",
          Resource: "arn:aws:s3:::zarr/*",
        },
        {
          Effect: "Deny",
          Principal: "*",
          Action: "s3:PutObject",
          // locked/ for the writes' refusals; partial.zarr/s1/ for a conversion refused part way.
          Resource: ["arn:aws:s3:::zarr/locked/*", "arn:aws:s3:::zarr/partial.zarr/s1/*"],
        },
      ],
    }),
  );
  server = await startServer({ mounts: { "/": repo } });
});
after(async () => {
  await browser?.close();
  await server?.close();
  moto?.kill();
});

/** Checks what writeToBucket saw. */
function checkReport(report, where) {
  assert.deepEqual(report.problems, [], `${where}: every array reads back`);
  assert.ok(report.chunkPuts > 10, `${where}: ${report.chunkPuts} chunks written`);
  assert.equal(
    report.retried,
    report.chunkPuts,
    `${where}: every chunk's failed PUT was sent again`,
  );
  assert.ok(report.before > report.afterResize.length, `${where}: the resize removed chunks`);
  assert.ok(
    report.afterResize.every((k) => /\/c\/[01]\/\d+$/.test(k)),
    `${where}: only the chunks of rows 0-127 are left: ${report.afterResize}`,
  );
  assert.ok(report.resizedOk, `${where}: the rows kept read back`);
  assert.deepEqual(report.afterErase, [], `${where}: nothing left below the erased array`);
  assert.equal(report.erasedOpen, "NotFoundError", `${where}: the erased array is gone`);
  assert.equal(report.refused?.name, "StoreError", `${where}: ${JSON.stringify(report.refused)}`);
  assert.equal(report.refused.status, 403);
  assert.match(
    report.refused.message,
    /^cannot write http:\/\/127\.0\.0\.1:\d+\/zarr\/locked\/[a-z]+\.zarr\/zarr\.json: HTTP status 403/,
    `names the key and the status: ${report.refused.message}`,
  );
}

/** The keys of the bucket's objects below `name`/. */
async function keysBelow(name) {
  const listing = await (await aws.fetch(`${bucket}/?list-type=2&prefix=${name}/`)).text();
  return [...listing.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]);
}

/** The bucket's objects below `name`/, copied to a directory of the same name in `out`. */
async function download(name) {
  const dir = join(out, name);
  rmSync(dir, { recursive: true, force: true });
  const keys = await keysBelow(name);
  assert.ok(keys.length > 10, `objects below ${name}/: ${keys.length}`);
  for (const key of keys) {
    const file = join(out, key);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, new Uint8Array(await (await aws.fetch(`${bucket}/${key}`)).arrayBuffer()));
  }
  return dir;
}

/** zarr-python reads the arrays below `name` from the bucket's objects, copied to disk. */
async function readBack(name) {
  const dir = await download(name);
  const manifest = [];
  for (const [path, options] of Object.entries(ARRAYS)) {
    if (path === "sharded") continue; // erased
    const shape = path === "plain" ? [100, 200] : options.shape;
    const expected = join(dir, `${path}.expected`);
    const values = valuesOf(options.dtype, options.shape).subarray(0, shape[0] * shape[1]);
    writeFileSync(expected, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    manifest.push({ store: dir, path, expected, dtype: options.dtype, shape });
  }
  readBackWithZarrPython(manifest, join(out, `${name}-manifest.json`));
}

test("s3: from Node, arrays written to moto's S3 through a writable FetchStore signed by aws4fetch (v3, sharded, v2) read back; each chunk's PUT failing mid-way is sent again; resize and erase find the chunks by ListObjectsV2; a PUT refused with 403 is a StoreError naming the key and status; zarr-python reads the bucket's objects", async () => {
  const reset = () =>
    Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNRESET" } });
  const report = await writeToBucket({ zarr, aws, bucket, name: "node.zarr", reset });
  checkReport(report, "Node");
  await readBack("node.zarr");
});

test("s3: from a Chromium page of another origin, the same writes through the bucket's CORS rules, read back by zarr-wasm and by zarr-python", async () => {
  browser = await launchChromium();
  const { page } = await openPage(browser, `${server.url}/tests/browser/s3.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
  const report = await page.evaluate(
    ([bucket, name]) => window.writeToBucket(bucket, name),
    [bucket, "chromium.zarr"],
  );
  checkReport(report, "Chromium");
  await readBack("chromium.zarr");
});

/** Runs `zarr-wasm convert` with the bucket's keys in its environment. */
const convertToBucket = (...args) =>
  runConvert([...args, "--quiet"], {
    AWS_ACCESS_KEY_ID: "zarr-wasm-test",
    AWS_SECRET_ACCESS_KEY: "not-checked",
    AWS_REGION: "us-east-1",
  });

test("s3: `zarr-wasm convert` to a bucket, signed from AWS_ACCESS_KEY_ID: ome-zarr-py's OME-Zarr 0.4 as sharded 0.5, read by zarr-python from the objects; a PUT refused part way stops it naming the key and status, the chunks written before it stay", async () => {
  const src = join(repo, "tests/fixtures/ome/ome_zarr_py_04.zarr");
  const whole = await convertToBucket(
    src,
    `${bucket}/converted.zarr`,
    "--ome",
    "--shards",
    "256,256",
  );
  assert.equal(whole.status, 0, whole.stderr);
  const dir = await download("converted.zarr");
  const arrays = ["s0", "s1", "s2", "labels/cells/s0", "labels/nuclei/s4"];
  const manifest = sameAsSource(dir, src, arrays, { zarr_format: 3 });
  checkConversionWithZarrPython(manifest, join(out, "converted-manifest.json"));
  const root = JSON.parse(await (await aws.fetch(`${bucket}/converted.zarr/zarr.json`)).text());
  assert.equal(root.attributes.ome.version, "0.5");

  // The bucket's policy refuses PUTs below partial.zarr/s1/: the labels and s0 go in first.
  const refused = await convertToBucket(src, `${bucket}/partial.zarr`, "--ome");
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /zarr-wasm convert: (converting the array "s1": )?cannot write http:\/\/127\.0\.0\.1:\d+\/zarr\/partial\.zarr\/s1\/zarr\.json: HTTP status 403/,
  );
  const left = await keysBelow("partial.zarr");
  assert.ok(
    left.some((k) => /^partial\.zarr\/s0\/c\//.test(k)),
    `s0's chunks stay: ${left.length} objects`,
  );
  assert.ok(!left.some((k) => k.startsWith("partial.zarr/s1/")), "nothing of s1");
});
