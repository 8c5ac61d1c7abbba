// What only a Node process of its own shows, each case a child process running a small module
// against the built package: a WorkerPool awaited at a module's top level, pools dropped without
// terminate() and collected, and a cold first open() (the module not loaded yet, the array's
// metadata and shard indexes asked for from JS meanwhile).
import { after, before, test } from "node:test";
import { deepEqual, equal, ok } from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { startServer } from "../support/server.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const pkg = `${repo}pkg/index.js`;
let server;
let dir;

before(async () => {
  server = await startServer({ mounts: { "/": repo } });
  dir = mkdtempSync(`${tmpdir()}/zarr-wasm-process-`);
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
