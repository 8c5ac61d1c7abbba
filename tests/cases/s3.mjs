// Writing to an S3 bucket (moto's server, started by tests/node/s3.test.mjs) through
// `new FetchStore(url, { writable: true, fetch })`, each request signed by aws4fetch, the same way
// in Node and in headless Chromium (tests/browser/s3.html, another origin than the bucket's):
// arrays written (v3, sharded v3, v2) and read back, a resize and an erase found by the bucket's
// listing, every chunk's first PUT failing after it was sent (and tried again), and a PUT the
// bucket's policy refuses. Answers plain data, which the test checks.
import { ARRAYS, valuesOf } from "../browser/opfs-arrays.js";

/** The bucket's keys below `prefix`, by ListObjectsV2. */
async function keysBelow(signed, bucket, prefix) {
  const response = await signed(`${bucket}/?list-type=2&prefix=${encodeURIComponent(prefix)}`);
  const xml = await response.text();
  return [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]).sort();
}

/**
 * Writes below `${bucket}/${name}` with `zarr` (zarr-wasm) and `aws` (an aws4fetch AwsClient);
 * `reset` makes the error a connection reset raises where the test runs.
 */
export async function writeToBucket({ zarr, aws, bucket, name, reset }) {
  // As docs/writing.md shows it: aws4fetch signs a URL with its init (a Request's body would go
  // as a stream, without the Content-Length S3 needs).
  const signed = async (request) =>
    typeof request === "string"
      ? aws.fetch(request)
      : aws.fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.method === "PUT" ? await request.arrayBuffer() : undefined,
          signal: request.signal,
        });
  // Each chunk's first PUT reaches the bucket, then fails as a reset connection would.
  const tries = new Map();
  const flaky = async (request) => {
    const key = new URL(request.url).pathname;
    const n = (tries.get(key) ?? 0) + 1;
    if (request.method === "PUT") tries.set(key, n);
    const response = await signed(request);
    if (request.method === "PUT" && /\/c[/.]/.test(key) && n === 1) {
      // Read, as a reset connection would have been: a body left unread holds its connection,
      // and a browser has six per origin.
      await response.arrayBuffer();
      throw reset();
    }
    return response;
  };
  const url = `${bucket}/${name}`;
  const store = new zarr.FetchStore(url, { writable: true, fetch: flaky, retries: 2 });
  const reader = () => new zarr.FetchStore(url, { fetch: signed });
  await zarr.createGroup(store, { attributes: { written: "by zarr-wasm" } });
  const problems = [];
  for (const [path, options] of Object.entries(ARRAYS)) {
    const arr = await zarr.create(store, { ...options, path });
    await arr.set(null, valuesOf(options.dtype, options.shape));
    const { data } = await (await zarr.open(reader(), { path, kind: "array" })).get();
    const want = valuesOf(options.dtype, options.shape);
    const bad = want.findIndex((v, k) => data[k] !== v);
    if (data.length !== want.length || bad >= 0)
      problems.push(`${path}: element ${bad} is ${data[bad]}, not ${want[bad]}`);
  }
  const chunkPuts = [...tries].filter(([key]) => /\/c[/.]/.test(key));
  const retried = chunkPuts.filter(([, n]) => n === 2).length;

  // Resize: the chunks past the new shape go, found by listing the bucket.
  const plain = await zarr.open(store, { path: "plain", kind: "array" });
  const before = await keysBelow(signed, bucket, `${name}/plain/c/`);
  await plain.resize([100, 200]);
  const afterResize = await keysBelow(signed, bucket, `${name}/plain/c/`);
  const { data: kept } = await (await zarr.open(reader(), { path: "plain", kind: "array" })).get();
  const keptWant = valuesOf("uint16", [300, 200]).subarray(0, 100 * 200);
  const resizedOk = kept.length === keptWant.length && kept.every((v, k) => v === keptWant[k]);

  // Erase: every key below the array, listed page by page.
  await zarr.erase(store, "sharded");
  const afterErase = await keysBelow(signed, bucket, `${name}/sharded/`);
  const erasedOpen = await zarr.open(reader(), { path: "sharded" }).then(
    () => "opened",
    (e) => e.name,
  );

  // A PUT the bucket's policy refuses (locked/*): a StoreError naming the key and the status.
  const locked = new zarr.FetchStore(`${bucket}/locked/${name}`, { writable: true, fetch: signed });
  const refused = await zarr.create(locked, { shape: [4], dtype: "uint8", chunks: [4] }).then(
    () => null,
    (e) => ({ name: e.name, message: e.message, status: e.status }),
  );
  return {
    problems,
    chunkPuts: chunkPuts.length,
    retried,
    before: before.length,
    afterResize,
    resizedOk,
    afterErase,
    erasedOpen,
    refused,
  };
}
