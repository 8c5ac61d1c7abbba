// `zarr-wasm convert` (pkg/cli.js, on zarr-wasm/convert), run as a command on real data: OME-Zarr
// 0.4 images by ome-zarr-py and ngff-zarr (Zarr v2, three levels, labels), Zarr v1 arrays, and
// kerchunk reference stores served over HTTP; zarr-python then reads every copy and compares it
// with its source (scripts/check_converted.py). Then what goes wrong: a destination that exists,
// a data type that cannot be written, a wrong command line, and a conversion cancelled with
// Ctrl-C. (A PUT refused part way through a conversion is tests/node/s3.test.mjs's.)
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  mkdirSync,
} from "node:fs";
import { join, relative } from "node:path";
import { runConvert } from "../support/cli.mjs";
import { checkConversionWithZarrPython, sameAsSource } from "../support/readback.mjs";
import { startServer } from "../support/server.mjs";

const repo = new URL("../../", import.meta.url).pathname;
const cli = join(repo, "pkg/cli.js");
const out = join(repo, "target/convert");
const fixtures = join(repo, "tests/fixtures");
let server;

before(async () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  server = await startServer({ mounts: { "/": fixtures } });
});
after(() => server?.close());

/** Runs the command; resolves to its status and what it printed. */
const convert = (...args) => runConvert(args);

/** Runs it and expects success. */
async function converted(...args) {
  const run = await convert(...args);
  assert.equal(run.status, 0, `convert ${args.join(" ")}:\n${run.stderr}`);
  return run;
}

/** zarr-python checks every case of `manifest` (scripts/check_converted.py); all must pass. */
function checkWithZarrPython(manifest, name) {
  return checkConversionWithZarrPython(manifest, join(out, `${name}.manifest.json`));
}

/** Every file below `dir`, relative, with its size and modification time. */
function snapshot(dir) {
  const files = {};
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const info = statSync(path);
      if (info.isDirectory()) walk(path);
      else files[relative(dir, path)] = `${info.size} ${info.mtimeMs}`;
    }
  };
  walk(dir);
  return files;
}

/** The arrays of an OME-Zarr fixture as ome-zarr-py's Reader saw them (tests/fixtures/ome.expected.json). */
function omeArrays(name) {
  const expected = JSON.parse(readFileSync(join(fixtures, "ome.expected.json"), "utf8"));
  const image = expected.images[`${name}.zarr`];
  const labels = Object.entries(image.labels).flatMap(([label, l]) =>
    l.paths.map((p) => `labels/${label}/${p}`),
  );
  return [...image.paths, ...labels];
}

test("convert: ome-zarr-py's OME-Zarr 0.4 on Zarr v2 (three levels, two label images) to sharded Zarr v3 with OME-Zarr 0.5, read back by zarr-python", async () => {
  const src = join(fixtures, "ome/ome_zarr_py_04.zarr");
  const dst = join(out, "ome_zarr_py_04.ome.zarr");
  const run = await converted(
    src,
    dst,
    "--ome",
    "--chunks",
    "64,64",
    "--shards",
    "200,200",
    "--codec",
    "blosc:zstd:5",
  );
  assert.match(
    run.stdout,
    /converted 13 arrays and 4 groups \(4\.0 MiB\) .* read back and compared/,
  );
  assert.match(run.stderr, /copied 13\/13 arrays/);
  const arrays = omeArrays("ome_zarr_py_04");
  assert.ok(arrays.length >= 13, `arrays: ${arrays}`);
  const source = JSON.parse(readFileSync(join(src, ".zattrs"), "utf8"));
  const manifest = sameAsSource(dst, src, arrays, { zarr_format: 3, codec: "blosc" });
  // 64 x 64 inner chunks; the shard 200 rounded up to 256, and no larger than the level.
  const s0 = manifest.find((c) => c.path === "s0");
  Object.assign(s0, {
    chunks: [1, 1, 64, 64],
    shards: [1, 1, 256, 256],
    dimension_names: ["c", "z", "y", "x"],
  });
  Object.assign(
    manifest.find((c) => c.path === "s2"),
    { shards: [1, 1, 64, 64] },
  );
  const multiscale = source.multiscales[0];
  manifest.push({
    kind: "group",
    dst,
    path: "",
    attrs: {
      ome: {
        version: "0.5",
        multiscales: [
          {
            axes: multiscale.axes,
            datasets: multiscale.datasets.map((d) => ({
              path: d.path,
              coordinateTransformations: d.coordinateTransformations.filter(
                (t) => t.type === "scale" || t.translation.some((x) => x !== 0),
              ),
            })),
            name: multiscale.name,
          },
        ],
        omero: source.omero,
      },
    },
  });
  const labels = JSON.parse(readFileSync(join(src, "labels/.zattrs"), "utf8"));
  manifest.push({
    kind: "group",
    dst,
    path: "labels",
    attrs: { ome: { version: "0.5", labels: labels.labels } },
  });
  checkWithZarrPython(manifest, "ome_zarr_py_04");
});

test("convert: ngff-zarr's consolidated OME-Zarr 0.4 (paths with spaces) through 2 worker threads, gzip, consolidated again", async () => {
  const src = join(fixtures, "ome/ngff_zarr_04.zarr");
  const dst = join(out, "ngff_zarr_04.ome.zarr");
  await converted(src, dst, "--ome", "--workers", "2", "--codec", "gzip:6", "--shards", "256");
  const zmetadata = JSON.parse(readFileSync(join(src, ".zmetadata"), "utf8")).metadata;
  const arrays = Object.keys(zmetadata)
    .filter((k) => k.endsWith("/.zarray"))
    .map((k) => k.slice(0, -"/.zarray".length));
  const groups = Object.keys(zmetadata)
    .filter((k) => k.endsWith("/.zgroup"))
    .map((k) => k.slice(0, -"/.zgroup".length));
  assert.ok(
    arrays.some((a) => a.includes(" ")),
    `a path with a space: ${arrays}`,
  );
  const manifest = sameAsSource(dst, src, arrays, { zarr_format: 3, codec: "gzip" });
  manifest.push({ kind: "consolidated", dst, nodes: [...arrays, ...groups] });
  checkWithZarrPython(manifest, "ngff_zarr_04");
  const root = JSON.parse(readFileSync(join(dst, "zarr.json"), "utf8"));
  assert.equal(root.attributes.ome.version, "0.5");
  assert.equal(root.attributes.multiscales, undefined, "no 0.4 multiscales left at the top");
});

test("convert: OME-Zarr 0.4 to Zarr v2 with other chunks and zstd (--zarr-format 2)", async () => {
  const src = join(fixtures, "ome/ome_zarr_py_04.zarr");
  const dst = join(out, "ome_zarr_py_04.v2.zarr");
  await converted(src, dst, "--zarr-format", "2", "--chunks", "100,100", "--codec", "zstd:3");
  const manifest = sameAsSource(dst, src, omeArrays("ome_zarr_py_04"), {
    zarr_format: 2,
    codec: "zstd",
  });
  manifest.find((c) => c.path === "s0").chunks = [1, 1, 100, 100];
  const attrs = JSON.parse(readFileSync(join(src, ".zattrs"), "utf8"));
  manifest.push({ kind: "group", dst, path: "", attrs });
  checkWithZarrPython(manifest, "ome_zarr_py_04_v2");
});

test("convert: Zarr v1 arrays (a directory, and by URL) to v3 and v2, every codec of theirs; records refused before anything is written", async () => {
  const expected = JSON.parse(readFileSync(join(fixtures, "v1.expected.json"), "utf8")).arrays;
  const manifest = [];
  for (const [i, a] of expected.entries()) {
    const dst = join(out, `v1_${a.path}`);
    const src = i % 2 ? `${server.url}/v1/${a.path}` : join(fixtures, "v1", a.path);
    const format = i % 3 === 0 ? "2" : "3";
    const run = await convert(src, dst, "--zarr-format", format, "--codec", "zstd", "--quiet");
    if (a.dtype === "structured") {
      assert.equal(run.status, 1, run.stderr);
      assert.match(
        run.stderr,
        /cannot convert the root array: writing its data type structured is not supported/,
      );
      assert.equal(existsSync(dst), false, "nothing written");
      continue;
    }
    assert.equal(run.status, 0, `${a.path}: ${run.stderr}`);
    manifest.push({
      kind: "array",
      dst,
      path: "",
      bin: join(fixtures, a.data),
      dtype: a.dtype === "bool" ? "bool" : a.dtype,
      shape: a.shape,
      zarr_format: Number(format),
    });
  }
  assert.ok(manifest.length >= 10, `${manifest.length} v1 arrays converted`);
  checkWithZarrPython(manifest, "v1");
});

test("convert: kerchunk reference stores over HTTP (JSON and Parquet, HDF5 and netCDF by VirtualiZarr) to v3, values and attributes", async () => {
  const expected = JSON.parse(
    readFileSync(join(fixtures, "references.expected.json"), "utf8"),
  ).arrays;
  const manifest = [];
  for (const store of ["references/h5.json", "references/h5.parq", "references/vz_nc.json"]) {
    const dst = join(out, store.replace(/[/.]/g, "_"));
    const run = await converted(`${server.url}/${store}`, dst, "--codec", "blosc:lz4", "--quiet");
    assert.match(run.stdout, /converted 5 arrays and 1 group/);
    for (const a of expected.filter((e) => e.store === store))
      manifest.push({
        kind: "array",
        dst,
        path: a.path,
        bin: join(fixtures, a.data),
        dtype: a.dtype,
        shape: a.shape,
        zarr_format: 3,
        codec: "blosc",
      });
  }
  assert.ok(manifest.length >= 15, `${manifest.length} arrays`);
  checkWithZarrPython(manifest, "references");
});

test("convert: a destination that holds a hierarchy is refused before anything is written, unless --overwrite; one that holds other files always", async () => {
  const src = join(fixtures, "ome/ome_zarr_py_04.zarr");
  const dst = join(out, "exists.zarr");
  await converted(src, dst, "--codec", "gzip:1", "--quiet");
  const before = snapshot(dst);
  const refused = await convert(src, dst, "--codec", "zstd");
  assert.equal(refused.status, 2);
  assert.match(
    refused.stderr,
    /the destination .*exists\.zarr already holds a Zarr hierarchy: pass --overwrite to replace it/,
  );
  assert.deepEqual(snapshot(dst), before, "not a file touched");
  const replaced = await converted(src, dst, "--codec", "zstd", "--overwrite", "--quiet");
  assert.match(replaced.stdout, /read back and compared/);
  const json = JSON.parse(readFileSync(join(dst, "s0/zarr.json"), "utf8"));
  assert.equal(json.codecs.at(-1).name, "zstd", "the copy is the new one");
  const other = join(out, "other-files");
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, "notes.txt"), "mine");
  const kept = await convert(src, other, "--overwrite");
  assert.equal(kept.status, 2);
  assert.match(kept.stderr, /holds files that are not a Zarr hierarchy \(notes\.txt\)/);
  assert.deepEqual(readdirSync(other), ["notes.txt"]);
});

test("convert: a wrong command line is exit status 2 with what is wrong", async () => {
  const src = join(fixtures, "ome/ome_zarr_py_04.zarr");
  const cases = [
    [
      ["--codec", "lz5"],
      /unknown codec "lz5": give zstd\[:level\], gzip\[:level\], blosc:<cname>\[:level\] or none/,
    ],
    [["--codec", "blosc:snappy"], /Blosc's compressor is one of blosclz, lz4, lz4hc, zlib, zstd/],
    [["--codec", "gzip:12"], /its level must be an integer from 0 to 9/],
    [["--zarr-format", "2", "--shards", "512"], /--shards are Zarr v3's/],
    [["--zarr-format", "2", "--ome"], /--ome writes OME-Zarr 0\.5, which is Zarr v3/],
    [["--chunks", "64,x"], /--chunks takes positive integers separated by commas/],
    [
      ["--chunks", "1,2,3,4,5"],
      /--chunks has 5 numbers; the array "labels\/cells\/s0" has 3 dimensions/,
    ],
    [["--frobnicate"], /unknown option --frobnicate/],
  ];
  for (const [args, message] of cases) {
    const dst = join(out, "never");
    const run = await convert(src, dst, ...args);
    assert.notEqual(run.status, 0, args.join(" "));
    assert.match(run.stderr, message, args.join(" "));
    assert.equal(existsSync(dst), false, `${args.join(" ")}: nothing written`);
  }
  const missing = await convert(join(out, "no-such-dir"), join(out, "never"));
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /the source .*no-such-dir does not exist/);
  const help = spawnSync(process.execPath, [cli, "--help"], { encoding: "utf8" });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /Usage: zarr-wasm convert <source> <destination> \[options\]/);
});

for (const workers of ["0", "2"])
  test(`convert: Ctrl-C part way through (--workers ${workers}) leaves every stored chunk whole (zarr-python reads each), no temporary file, exit status 130`, async () => {
    // A 128 MiB array (the scale tests' data, written by zarr-python), re-encoded slowly enough
    // (gzip level 9, chunks of 256 x 256) to be interrupted with chunks written.
    const src = join(repo, "target/scale-data/sharded_64mib.zarr");
    assert.ok(existsSync(join(src, "zarr.json")), "scripts/make_scale_data.sh made the data");
    const dst = join(out, `cancelled-${workers}.zarr`);
    const child = spawn(
      process.execPath,
      [
        cli,
        "convert",
        src,
        dst,
        "--codec",
        "gzip:9",
        "--chunks",
        "256,256",
        "--workers",
        workers,
        "--quiet",
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const closed = new Promise((resolve) => child.on("close", resolve));
    const chunksDir = join(dst, "c");
    const stored = () => {
      try {
        return readdirSync(chunksDir, { recursive: true }).filter((n) => /\d$/.test(n)).length;
      } catch {
        return 0;
      }
    };
    const started = Date.now();
    while (stored() < 20) {
      assert.ok(Date.now() - started < 60_000, "chunks were written within a minute");
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill("SIGINT");
    const status = await closed;
    assert.equal(status, 130, stderr);
    assert.match(stderr, /cancelled; every value written is whole/);
    const files = readdirSync(dst, { recursive: true });
    assert.deepEqual(
      files.filter((f) => f.includes("partial")),
      [],
      "no temporary file left",
    );
    const total = (8192 / 256) * (8192 / 256);
    const out2 = checkWithZarrPython(
      [{ kind: "partial", dst, path: "", src, src_path: "" }],
      `cancelled-${workers}`,
    );
    const count = Number(/\((\d+) stored\)/.exec(out2)[1]);
    assert.ok(count >= 20 && count < total, `${count} of ${total} chunks stored, each whole`);
  });
