// The Rust tests of the binding layer in a real browser: `wasm-pack test --headless --chrome` runs
// tests/browser_bindings.rs (wasm-bindgen-test) in Debian's Chromium through its ChromeDriver
// (both installed by scripts/setup.sh, as is wasm-pack, pinned; webdriver.json gives Chromium's
// flags). The fixture server runs here; its URL reaches the suite at build time. And the example
// of a Rust app on the core alone, built for wasm32 and run.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname } from "node:path";
import { startServer } from "../support/server.mjs";

const repo = new URL("../../", import.meta.url).pathname;
let server;
before(async () => {
  server = await startServer({ mounts: { "/": repo } });
});
after(() => server.close());

// The wasm32 toolchain scripts/setup.sh found (target/toolchain.env): rustup's target, or Debian's
// rustc-web with the standard library built from source.
function toolchainEnv() {
  const vars = Object.fromEntries(
    readFileSync(`${repo}/target/toolchain.env`, "utf8")
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  const env = { PATH: `${homedir()}/.cargo/bin:${process.env.PATH}` };
  if (vars.WASM_RUSTC) {
    Object.assign(env, { RUSTC: vars.WASM_RUSTC, RUSTC_BOOTSTRAP: "1" });
    env.PATH = `${dirname(vars.CARGO)}:${env.PATH}`;
    const std = /-Zbuild-std=(\S+)/.exec(vars.BUILD_STD ?? "");
    if (std) env.CARGO_UNSTABLE_BUILD_STD = std[1];
  }
  return env;
}

/** Runs `command` in the repository; its exit code and everything it printed. */
function run(command, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repo, env: { ...process.env, ...env } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

test("wasm-pack: tests/browser_bindings.rs passes in headless Chromium (fetch, ranges, shards, aborts, JS stores, a codec on its own, errors)", async () => {
  const { code, output } = await run(
    "wasm-pack",
    [
      "test",
      "--headless",
      "--chrome",
      // The wasm-bindgen-cli and ChromeDriver setup.sh installed: nothing is downloaded.
      "--mode",
      "no-install",
      "--chromedriver",
      "/usr/bin/chromedriver",
      ".",
      "--test",
      "browser_bindings",
    ],
    {
      ...toolchainEnv(),
      ZARR_WASM_TEST_SERVER: server.url,
      // A test's limit (the harness's default is 20 s): compiling is not counted, but a loaded
      // machine is slow.
      WASM_BINDGEN_TEST_TIMEOUT: "60",
    },
  );
  const result = /test result: (\w+)\. (\d+) passed; (\d+) failed/.exec(output);
  assert.ok(result, `no test result in wasm-pack's output:\n${output.slice(-4000)}`);
  assert.equal(code, 0, output.slice(-4000));
  assert.equal(result[1], "ok", output.slice(-4000));
  // Every test of the suite ran and passed.
  assert.deepEqual([Number(result[2]), Number(result[3])], [7, 0], output.slice(-4000));
});

test("rust-wasm-app: a Rust app on the core without the bindings (examples/rust-wasm-app) builds for wasm32, imports nothing and runs", async () => {
  const { code, output } = await run(
    "cargo",
    ["build", "--release", "-p", "rust-wasm-app", "--target", "wasm32-unknown-unknown"],
    toolchainEnv(),
  );
  assert.equal(code, 0, output.slice(-4000));
  const wasm = readFileSync(`${repo}/target/wasm32-unknown-unknown/release/rust_wasm_app.wasm`);
  const module = await WebAssembly.compile(wasm);
  const exports = WebAssembly.Module.exports(module).map((e) => e.name);
  const imports = WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`);
  assert.ok(exports.includes("demo_row_sum"), `its export: ${exports}`);
  assert.deepEqual(
    exports.filter((name) => /wbg|wasm_bindgen|zarr/i.test(name)),
    [],
    "nothing of the bindings is exported",
  );
  assert.deepEqual(imports, [], "it imports nothing: no JavaScript glue");
  // It runs: row 2 of the demo array holds 200..205.
  const instance = await WebAssembly.instantiate(module, {});
  assert.equal(instance.exports.demo_row_sum(2), BigInt(200 + 201 + 202 + 203 + 204 + 205));
});
