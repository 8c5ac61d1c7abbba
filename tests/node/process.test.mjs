// What only a Node process of its own shows, each case a child process running a small module
// against the built package: a WorkerPool awaited at a module's top level, pools dropped without
// terminate() and collected, and a cold first open() (the module not loaded yet, the array's
// metadata and shard indexes asked for from JS meanwhile).
import { after, before, test } from "node:test";
import { deepEqual, equal, ok } from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { startServer } from "../support/server.mjs";

const repo = new URL("../../", import.meta.url).pathname;
// PKG: another copy of the package to run them against (a build before a change, say).
const pkg = process.env.PKG ?? `${repo}pkg/index.js`;
let server;
let dir;

before(async () => {
  dir = mkdtempSync(`${tmpdir()}/zarr-wasm-process-`);
  // codecs.zarr's sharding/index_end (zarr-python's, 2 x 2 shards of 4 x 4 inner chunks) with its
  // index's crc32c taken off: nothing then tells a wrong index from the right one.
  const array = `${dir}/data/index_end`;
  cpSync(`${repo}tests/fixtures/codecs.zarr/sharding/index_end`, array, { recursive: true });
  const meta = JSON.parse(readFileSync(`${array}/zarr.json`, "utf8"));
  meta.codecs[0].configuration.index_codecs = [
    { name: "bytes", configuration: { endian: "little" } },
  ];
  writeFileSync(`${array}/zarr.json`, JSON.stringify(meta));
  for (const shard of ["0/0", "0/1", "1/0", "1/1"]) {
    const bytes = readFileSync(`${array}/c/${shard}`);
    writeFileSync(`${array}/c/${shard}`, bytes.subarray(0, bytes.length - 4));
  }
  server = await startServer({ mounts: { "/": repo, "/data/": `${dir}/data` } });
});
after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `source` as a module (`import`s of zarr-wasm by the package's path) in a process of its
 * own, with `args` for node: resolves to `{ code, stdout, stderr }`, or rejects after `ms`.
 */
function run(source, { args = [], ms = 60000 } = {}) {
  const file = `${dir}/${Math.random().toString(36).slice(2)}.mjs`;
  writeFileSync(file, source);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, file], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the process did not end within ${ms} ms: ${stdout} ${stderr}`));
    }, ms);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("process: `await new WorkerPool(2).ready()` at a module's top level resolves, and the process then ends by itself", async () => {
  const { code, stdout, stderr } = await run(`
    import { WorkerPool } from ${JSON.stringify(pkg)};
    const pool = new WorkerPool(2);
    await pool.ready();
    console.log(JSON.stringify({ ready: true, workers: pool.workers.length }));
  `);
  // Exit code 13 is Node's for a top-level await left unsettled: nothing kept the process alive
  // while the workers started.
  equal(code, 0, `exit code ${code}: ${stderr}`);
  deepEqual(JSON.parse(stdout), { ready: true, workers: 2 });
});

test("process: WorkerPools dropped without terminate() stop their workers once collected; a pool still held keeps its own", async () => {
  const { code, stdout, stderr } = await run(
    `
    import { readFileSync } from "node:fs";
    import { open, preload, WorkerPool } from ${JSON.stringify(pkg)};
    const threads = () => Number(/Threads:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
    const megabytes = () => Math.round(process.memoryUsage().rss / 2 ** 20);
    const keep = setInterval(() => {}, 1000); // alive whatever the pools do (see the case above)
    await preload();
    const before = { threads: threads(), rss: megabytes() };
    const held = new WorkerPool(1);
    await held.ready();
    // Each pool used once (a read through its worker), then dropped.
    for (let i = 0; i < 20; i++) {
      const pool = new WorkerPool(1);
      const arr = await open(${JSON.stringify(`${server.url}/tests/fixtures/v3.zarr`)}, { path: "dtypes/uint16", workers: pool });
      await pool.ready();
      await arr.get();
    }
    const used = { threads: threads(), rss: megabytes() };
    // Collected, then stopped: the nodes first, which release their pools, then the pools.
    for (let i = 0; i < 50 && threads() > before.threads + 2; i++) {
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 100));
    }
    clearInterval(keep);
    console.log(JSON.stringify({ before, used, after: { threads: threads(), rss: megabytes() }, held: held.workers.length }));
    held.terminate();
  `,
    { args: ["--expose-gc"], ms: 120000 },
  );
  equal(code, 0, `exit code ${code}: ${stderr}`);
  const { before, used, after } = JSON.parse(stdout);
  ok(used.threads >= before.threads + 21, `21 workers running: ${stdout}`);
  // The held pool's worker, and at most one thread of Node's own started meanwhile (one is, with
  // no pool held at all).
  ok(
    after.threads <= before.threads + 2,
    `the 20 dropped pools' workers ended, the held pool's is left: ${stdout}`,
  );
});

const log = async () => (await fetch(`${server.url}/__log`)).json();
const clearLog = async () => void (await fetch(`${server.url}/__log/clear`)).text();

// One element in each of sharding/index_end's 4 shards, each in the shard's second inner chunk
// (an index read 16 bytes early gives it the first one's bytes: other values, no error).
const POINTS = [
  [0, 8],
  [0, 40],
  [32, 8],
  [32, 40],
];

/** The values at POINTS of codecs.zarr's sharding/index_end, as zarr-python wrote them. */
function indexEndValues() {
  const bytes = readFileSync(`${repo}tests/fixtures/v3.expected/codecs__sharding__index_end.bin`);
  const values = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  return POINTS.map(([y, x]) => values[y * 60 + x]);
}

/**
 * A module that opens `url`'s array at `path` in a cold process and prints its values at POINTS,
 * read at once (each element's shard index is needed: a whole shard would be read whole).
 */
const coldRead = (url, path) => `
  import { open, slice } from ${JSON.stringify(pkg)};
  const arr = await open(${JSON.stringify(url)}, { path: ${JSON.stringify(path)} });
  const at = async ([y, x]) => (await arr.get([slice(y, y + 1), slice(x, x + 1)])).data[0];
  console.log(JSON.stringify(await Promise.all(${JSON.stringify(POINTS)}.map(at))));
`;

test("process: a cold first open() of a sharded array on a server that refuses suffix ranges sends one, not one per shard (from JS while the module loads, nor from the module after)", async () => {
  await clearLog();
  const { code, stdout, stderr } = await run(
    coldRead(`${server.url}/__nosuffix/tests/fixtures/codecs.zarr`, "sharding/index_end"),
  );
  equal(code, 0, `exit code ${code}: ${stderr}`);
  deepEqual(JSON.parse(stdout), indexEndValues(), "the values");
  const asked = (await log()).filter((r) => r.path.includes("/sharding/index_end/c/"));
  const refused = asked.filter((r) => r.status === 416);
  equal(refused.length, 1, `one suffix range refused: ${JSON.stringify(asked)}`);
  // After the refusal, each shard's index by HEAD and an explicit range, once.
  equal(asked.filter((r) => r.method === "HEAD").length, 4, JSON.stringify(asked));
});

test("process: a cold first open() takes no shard index fetched from JS whose Content-Range is another range than the one asked for (an index without crc32c would read as wrong values)", async () => {
  // The first range request for each shard is answered with the range 16 bytes earlier, and a
  // Content-Range that says so: the JS requests get those; the module, asking again, the right
  // ones.
  await clearLog();
  const { code, stdout, stderr } = await run(
    coldRead(`${server.url}/__wrongrange/1/data`, "index_end"),
  );
  equal(code, 0, `exit code ${code}: ${stderr}`);
  deepEqual(JSON.parse(stdout), indexEndValues(), "the values");
  const wrong = (await log()).filter((r) => r.quirk === "wrongrange");
  equal(
    wrong.length,
    4,
    `each shard's first index request answered wrong: ${JSON.stringify(wrong)}`,
  );
});
