// The test server's HTTP behaviour, which the read tests rely on: ranges, statuses, the request log.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { startServer } from "../support/server.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const key = "/tests/fixtures/v3.zarr/layouts/d1/c/0"; // a 64-byte raw chunk
let server;

before(async () => (server = await startServer({ mounts: { "/": repo } })));
after(() => server.close());

const get = (path, headers = {}) => fetch(`${server.url}${path}`, { headers });

/** A request with its path sent exactly as given (fetch would normalise dot segments away). */
const rawStatus = (path) =>
  new Promise((ok, fail) => {
    const req = request(`${server.url}${path}`, (res) => (res.resume(), ok(res.statusCode)));
    req.on("error", fail).end();
  });

test("server: whole files, byte ranges, suffix ranges and unsatisfiable ranges", async () => {
  const whole = new Uint8Array(await (await get(key)).arrayBuffer());
  assert.equal(whole.length, 64);
  let r = await get(key, { Range: "bytes=4-11" });
  assert.equal(r.status, 206);
  assert.equal(r.headers.get("content-range"), "bytes 4-11/64");
  assert.deepEqual(new Uint8Array(await r.arrayBuffer()), whole.subarray(4, 12));
  r = await get(key, { Range: "bytes=-10" });
  assert.equal(r.headers.get("content-range"), "bytes 54-63/64");
  assert.deepEqual(new Uint8Array(await r.arrayBuffer()), whole.subarray(54));
  r = await get(key, { Range: "bytes=60-" });
  assert.deepEqual(new Uint8Array(await r.arrayBuffer()), whole.subarray(60));
  r = await get(key, { Range: "bytes=64-70" });
  assert.equal(r.status, 416);
  assert.equal(r.headers.get("content-range"), "bytes */64");
});

test("server: missing files, forced statuses, paths outside the mounts, and the log", async () => {
  server.clearLog();
  assert.equal((await get("/tests/fixtures/nothing-here")).status, 404);
  assert.equal((await get("/__status/503/anything")).status, 503);
  assert.equal(await rawStatus("/tests/..%2F..%2F..%2F..%2Fetc%2Fpasswd"), 403);
  const log = await (await get("/__log")).json();
  assert.deepEqual(
    log.map((r) => r.status),
    [404, 503, 403],
  );
});
