// zarr-python (with numcodecs' C codecs, in .venv-readers: scripts/readers_venv.sh makes it where
// it is missing) reads back what a test wrote: scripts/read_back.py over a manifest of cases.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const repo = new URL("../../", import.meta.url).pathname;

/** Writes `manifest` to `manifestFile` and has zarr-python read every case: all must read back. */
export function readBackWithZarrPython(manifest, manifestFile) {
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const python = execFileSync("bash", [join(repo, "scripts/readers_venv.sh")], {
    encoding: "utf8",
  }).trim();
  const report = execFileSync(python, [join(repo, "scripts/read_back.py"), manifestFile], {
    encoding: "utf8",
  });
  assert.equal(
    report.split("\n").filter((l) => l.startsWith("ok ")).length,
    manifest.length,
    report,
  );
}
