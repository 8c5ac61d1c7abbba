// zarr-python (with numcodecs' C codecs, in .venv-readers: scripts/readers_venv.sh makes it where
// it is missing) reads back what a test wrote: scripts/read_back.py over a manifest of cases, or
// scripts/check_converted.py over a conversion's.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const repo = new URL("../../", import.meta.url).pathname;

/** The Python of .venv-readers (zarr-python, tensorstore, moto), made where it is missing. */
export function readersPython() {
  return execFileSync("bash", [join(repo, "scripts/readers_venv.sh")], {
    encoding: "utf8",
  }).trim();
}

/** Writes `manifest` to `manifestFile` and has zarr-python read every case: all must read back. */
export function readBackWithZarrPython(manifest, manifestFile) {
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const report = execFileSync(readersPython(), [join(repo, "scripts/read_back.py"), manifestFile], {
    encoding: "utf8",
  });
  assert.equal(
    report.split("\n").filter((l) => l.startsWith("ok ")).length,
    manifest.length,
    report,
  );
}

/**
 * Writes `manifest` to `manifestFile` and has zarr-python check every case of a conversion
 * (scripts/check_converted.py): all must pass. Resolves to its report, a line per case.
 */
export function checkConversionWithZarrPython(manifest, manifestFile) {
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const run = spawnSync(readersPython(), [join(repo, "scripts/check_converted.py"), manifestFile], {
    encoding: "utf8",
  });
  assert.equal(run.status, 0, `zarr-python:\n${run.stdout}${run.stderr}`);
  assert.equal(
    run.stdout.split("\n").filter((l) => l.startsWith("ok ")).length,
    manifest.length,
    run.stdout,
  );
  return run.stdout;
}

/**
 * The cases of `manifest` for arrays at `paths` of the conversion `dst` whose values are those at
 * the same paths of `src`, each with `fields` (zarr_format, codec, ...) to check too.
 */
export function sameAsSource(dst, src, paths, fields = {}) {
  return paths.map((path) => ({ kind: "array", dst, path, src, src_path: path, ...fields }));
}
