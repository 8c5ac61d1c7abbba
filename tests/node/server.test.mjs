// The test server's HTTP behaviour, which the read tests rely on: ranges, statuses, the request log.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
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

/** Sends raw HTTP/1.1 requests on one connection, and what came back after `ms`. */
async function onOneConnection(requests, ms = 200) {
  const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
  let got = "";
  socket.on("data", (d) => (got += d.toString("latin1")));
  for (const line of requests) socket.write(`${line} HTTP/1.1\r\nHost: x\r\n\r\n`);
  await new Promise((ok) => setTimeout(ok, ms));
  return { got, socket };
}

const inFlight = async () => {
  for (let i = 0; i < 50 && Number(await (await get("/__active")).text()) > 1; i++)
    await new Promise((ok) => setTimeout(ok, 10));
  return (await (await get("/__active/list")).json()).filter((e) => e.path !== "/__active/list");
};

test("server: endless and huge answers to HEAD are whole with their headers, and keep the server alive", async () => {
  for (const mode of ["endless", "huge"]) {
    const { got, socket } = await onOneConnection([`HEAD /__${mode}${key}`, `GET ${key}`]);
    socket.destroy();
    const answers = got.split("HTTP/1.1 ").slice(1);
    assert.equal(answers.length, 2, `${mode}: both answers came: ${JSON.stringify(got)}`);
    assert.match(answers[0], /^200 OK/);
    if (mode === "huge") assert.match(answers[0], /Content-Length: 1099511627776/i);
    assert.match(answers[1], /^200 OK[\s\S]*Content-Length: 64/i);
  }
  assert.deepEqual(await inFlight(), []);
});

test("server: a request waiting behind an answer that never comes is not in flight once its connection closes", async () => {
  const { got, socket } = await onOneConnection([`GET /__stall${key}`, `GET ${key}`]);
  assert.equal(got, "", "nothing answered while the first waits");
  assert.equal((await inFlight()).length, 2, "both are in flight");
  socket.destroy();
  assert.deepEqual(await inFlight(), [], "the connection's end settles both");
});
