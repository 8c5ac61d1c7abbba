// The package's command (pkg/cli.js) run as a user runs it: a process of its own.
import { spawn } from "node:child_process";

const cli = new URL("../../pkg/cli.js", import.meta.url).pathname;

/**
 * Runs `zarr-wasm convert ...args` with `env` added to the environment; resolves to its exit
 * status and what it printed.
 */
export function runConvert(args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, "convert", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
