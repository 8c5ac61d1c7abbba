#!/usr/bin/env node
// The package's command: `npx zarr-wasm convert <source> <destination> [options]` (see `--help`).
// Node only: it reads and writes local directories through zarr-wasm/fs.
import { destinationStore, sourceLocation, UsageError } from "./cli-locations.js";
import { RegionWorkers } from "./cli-workers.js";
import { convert, parseCodec } from "./convert.js";
import { AbortError } from "./index.js";

const USAGE = `Usage: zarr-wasm convert <source> <destination> [options]

Copies a Zarr hierarchy (v3, v2 or v1) and re-encodes every array.

  <source>        a directory, an http(s) URL of a Zarr hierarchy, a kerchunk reference file
                  (.json or .parq, by URL), or a ZIP file (.zip, a path or a URL)
  <destination>   a directory (made if missing), or an http(s) URL that takes PUT and DELETE
                  (an S3 bucket's prefix: requests are signed when AWS_ACCESS_KEY_ID and
                  AWS_SECRET_ACCESS_KEY are set, with aws4fetch, which must be installed)

Options:
  --zarr-format 3|2        the format written (default 3)
  --chunks a,b,...         the chunk shape (with --shards, the inner chunks'); fewer numbers
                           than dimensions apply to the last ones, the others keep the source's
  --shards a,b,...         the shard shape (Zarr v3); fewer numbers apply to the last
                           dimensions, the others take one chunk; each is rounded up to a
                           multiple of the chunk
  --codec C                zstd[:level] | gzip[:level] | blosc:<cname>[:level] | none, where
                           cname is blosclz, lz4, lz4hc, zlib or zstd (default: zstd at
                           level 0, what zarr-python writes)
  --ome                    rewrite OME-Zarr 0.4 (and earlier) metadata as OME-Zarr 0.5
  --workers N              decode and encode in N worker threads (default 0: this thread)
  --no-verify              do not read the copy back and compare it with the source
  --overwrite              replace a Zarr hierarchy already at the destination
  --quiet                  no progress bar
  -h, --help               this text

Exit status: 0 done, 1 failed (the message names the array, key or option), 2 a wrong
command line, 130 cancelled (Ctrl-C: the values in flight are finished, none is left torn).`;

/** The command line's options as `convert` takes them, and the two locations. */
function parseArguments(args) {
  const positional = [];
  const options = { verify: true };
  let quiet = false;
  const shape = (value, flag) => {
    if (value === undefined || !/^\d+(,\d+)*$/.test(value))
      throw new UsageError(`${flag} takes positive integers separated by commas, such as 512,512`);
    const numbers = value.split(",").map(Number);
    if (numbers.some((n) => n < 1))
      throw new UsageError(`${flag}: every number must be at least 1`);
    return numbers;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg];
    const value = () => inline ?? args[++i];
    switch (flag) {
      case "--zarr-format": {
        const v = value();
        if (v !== "2" && v !== "3") throw new UsageError(`--zarr-format is 2 or 3, not ${v}`);
        options.zarrFormat = Number(v);
        break;
      }
      case "--chunks":
        options.chunks = shape(value(), "--chunks");
        break;
      case "--shards":
        options.shards = shape(value(), "--shards");
        break;
      case "--codec":
        try {
          options.codec = parseCodec(value() ?? "");
        } catch (err) {
          throw new UsageError(`--codec: ${err.message}`);
        }
        break;
      case "--ome":
        options.ome = true;
        break;
      case "--workers": {
        const v = value();
        if (!/^\d+$/.test(v ?? "") || Number(v) > 64)
          throw new UsageError(`--workers takes a number from 0 to 64, not ${v}`);
        options.workers = Number(v);
        break;
      }
      case "--verify":
        options.verify = true;
        break;
      case "--no-verify":
        options.verify = false;
        break;
      case "--overwrite":
        options.overwrite = true;
        break;
      case "--quiet":
        quiet = true;
        break;
      default:
        if (arg.startsWith("-")) throw new UsageError(`unknown option ${arg}`);
        positional.push(arg);
    }
  }
  if (positional.length !== 2)
    throw new UsageError(`convert takes a source and a destination (${positional.length} given)`);
  if (options.shards && options.zarrFormat === 2)
    throw new UsageError("--shards are Zarr v3's: they cannot be written with --zarr-format 2");
  if (options.ome && options.zarrFormat === 2)
    throw new UsageError("--ome writes OME-Zarr 0.5, which is Zarr v3: not with --zarr-format 2");
  return { source: positional[0], destination: positional[1], options, quiet };
}

const MiB = 1 << 20;

/** A progress bar on a terminal (redrawn at most 10 times a second); lines elsewhere. */
function progressBar(out, quiet) {
  let last = 0;
  let lastPath = null;
  let drawn = false;
  const tty = Boolean(out.isTTY);
  const update = (p) => {
    if (quiet) return;
    if (!tty) {
      // A line per array done, where no terminal redraws a bar.
      const key = `${p.phase} ${p.arraysDone}`;
      if (key !== lastPath && p.arraysDone > 0)
        out.write(
          `${p.phase === "copy" ? "copied" : "verified"} ${p.arraysDone}/${p.arraysTotal} arrays (${(p.bytesDone / MiB).toFixed(1)} MiB)\n`,
        );
      lastPath = key;
      return;
    }
    const now = Date.now();
    if (now - last < 100 && p.bytesDone < p.bytesTotal) return;
    last = now;
    const share = p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : 1;
    const width = 30;
    const full = Math.round(share * width);
    const bar = "#".repeat(full) + "-".repeat(width - full);
    const size = `${(p.bytesDone / MiB).toFixed(1)}/${(p.bytesTotal / MiB).toFixed(1)} MiB`;
    const line = `${p.phase === "copy" ? "copy  " : "verify"} [${bar}] ${(share * 100).toFixed(0).padStart(3)}% ${size} ${p.path || "/"}`;
    out.write(`\r${line.slice(0, (out.columns ?? 100) - 1)}\x1b[K`);
    drawn = true;
  };
  update.end = () => {
    if (drawn) out.write("\n");
  };
  return update;
}

/** Runs the command; resolves to the exit status. */
async function main(args, { stdout = process.stdout, stderr = process.stderr } = {}) {
  if (args.length === 0 || args[0] === "-h" || args[0] === "--help" || args.includes("--help")) {
    stdout.write(`${USAGE}\n`);
    return args.length === 0 ? 2 : 0;
  }
  if (args[0] !== "convert") {
    stderr.write(
      `zarr-wasm: unknown command ${args[0]} (the one command is convert)\n\n${USAGE}\n`,
    );
    return 2;
  }
  let parsed;
  let workers = null;
  const started = Date.now();
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    if (++interrupts > 1) process.exit(130);
    stderr.write(
      "\ncancelling: finishing the values being written (Ctrl-C again to stop at once)\n",
    );
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onInterrupt);
  const bar = progressBar(stderr, false);
  try {
    parsed = parseArguments(args.slice(1));
    const { options } = parsed;
    const source = await sourceLocation(parsed.source);
    const destination = await destinationStore(parsed.destination, options.overwrite);
    const progress = progressBar(stderr, parsed.quiet);
    Object.assign(bar, { end: progress.end });
    // --workers N: threads that each copy their share of an array's regions (cli-workers.js).
    workers =
      options.workers > 0
        ? new RegionWorkers(options.workers, parsed.source, parsed.destination)
        : null;
    // Started now: they load their JavaScript while this thread plans the conversion.
    workers?.start();
    const done = await convert(source, destination, {
      ...options,
      workers: 0,
      __regionWorkers: workers ?? undefined,
      signal: controller.signal,
      onProgress: progress,
    });
    progress.end();
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    stdout.write(
      `converted ${done.arrays} array${done.arrays === 1 ? "" : "s"} and ${done.groups} group${done.groups === 1 ? "" : "s"} (${(done.bytes / MiB).toFixed(1)} MiB) to ${parsed.destination} in ${seconds} s${options.verify ? ", read back and compared" : ""}\n`,
    );
    return 0;
  } catch (err) {
    bar.end();
    if (err instanceof UsageError) {
      stderr.write(`zarr-wasm convert: ${err.message}\n`);
      return 2;
    }
    if (err instanceof AbortError || (controller.signal.aborted && err?.name === "AbortError")) {
      stderr.write(
        "zarr-wasm convert: cancelled; every value written is whole, and the destination holds part of the hierarchy\n",
      );
      return 130;
    }
    stderr.write(`zarr-wasm convert: ${err?.message ?? err}\n`);
    return 1;
  } finally {
    workers?.terminate();
    process.off("SIGINT", onInterrupt);
    process.off("SIGTERM", onInterrupt);
  }
}

process.exitCode = await main(process.argv.slice(2));
