// The first view on a cold page (issue 33), in headless Chromium: a page that imports a reader,
// opens the sharded zstd image of bench/data/tiles.zarr and asks for the twelve tiles of
// bench/tiles.js's viewport at once. DevTools throttles the network (20 Mbit/s down, 10 up, 40 ms
// latency) with the cache disabled; each run is a fresh browser context; the readers alternate;
// medians. The server gzips code and metadata as a CDN does; both readers are bundled as a
// viewer's production build would have them. Measured per reader, same origin and
// cross origin (page on localhost, data on 127.0.0.1), then zarr-wasm through WorkerPool(2), then
// unthrottled: the code the page downloads (bytes on the wire), when the array is open, when the
// shard indexes were in and the first data request left, the first tile and all twelve (from
// navigation start), and the requests the data server saw. Then a page per codec (an array of
// bench/data/bench.zarr each): the code each reader's page downloads for it.
//
//   node bench/cold.mjs [runs]     alone, printing its table (bench.mjs runs it in `npm run bench`)
//   node bench/cold.mjs [runs] --first-views    the first views of OME-Zarr images only
import { copyFileSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as esbuild from "esbuild";
import { startServer } from "../tests/support/server.mjs";
import { launchChromium } from "../tests/support/browser.mjs";
import { median } from "./codecs.js";

const THROTTLED = {
  offline: false,
  latency: 40,
  downloadThroughput: (20e6 / 8) | 0,
  uploadThroughput: (10e6 / 8) | 0,
};

/**
 * Both readers as a viewer's production build has them: esbuild, minified, with code splitting,
 * so that what loads on first use (numcodecs.js's codecs; zarr-wasm's glue and second module) is
 * a chunk of its own. zarr-wasm's WebAssembly files go beside its bundle, where its
 * `new URL(..., import.meta.url)` finds them. Its worker is a bundle of its own, as the README's
 * esbuild step builds it and as Vite builds a worker: built as a second entry point of the same
 * build, the code both share would be a chunk of its own, one more round trip before the page's
 * code runs.
 */
async function bundleReaders(repo) {
  const common = {
    absWorkingDir: repo,
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    platform: "browser",
    logLevel: "error",
  };
  const out = `${repo}/target/bench/cold`;
  rmSync(out, { recursive: true, force: true });
  await esbuild.build({ ...common, entryPoints: { zarrita: "zarrita" }, outdir: `${out}/zarrita` });
  // zarrita.js with zarr-wasm/zarrita's mergeRanges (which bundles none of zarr-wasm's module).
  await esbuild.build({
    ...common,
    stdin: {
      contents: 'export * from "zarrita";\nexport { mergeRanges } from "zarr-wasm/zarrita";\n',
      resolveDir: repo,
      sourcefile: "zarrita-merge.js",
    },
    outdir: `${out}/zarrita-merge`,
  });
  await esbuild.build({
    ...common,
    entryPoints: { "zarr-wasm": "zarr-wasm" },
    outdir: `${out}/zarr-wasm`,
  });
  await esbuild.build({
    ...common,
    entryPoints: { worker: "zarr-wasm/worker" },
    outdir: `${out}/zarr-wasm-worker`,
  });
  for (const f of readdirSync(`${repo}/pkg`).filter((f) => f.endsWith("_bg.wasm")))
    for (const dir of ["zarr-wasm", "zarr-wasm-worker"])
      copyFileSync(`${repo}/pkg/${f}`, `${out}/${dir}/${f}`);
}

/** One cold page of `reader` in a fresh context: its times, code bytes and the server's counts. */
async function coldPage(
  browser,
  { repo, pageOrigin, dataOrigin, reader, page: pagePath, path, image, workers, suffix, throttle },
) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    if (throttle) await cdp.send("Network.emulateNetworkConditions", THROTTLED);
    const urls = new Map();
    const code = { bytes: 0, files: [] };
    // The shards' requests, for when their indexes were in and when the data phase began.
    const shardRequests = new Map();
    let navigationStart = null; // CDP's clock at the page's first request
    cdp.on("Network.requestWillBeSent", ({ requestId, request, timestamp }) => {
      navigationStart ??= timestamp;
      const path = new URL(request.url).pathname;
      if (/^\/tiles\.zarr\/.*\/c\//.test(path) && request.method === "GET")
        shardRequests.set(requestId, {
          path,
          range: Object.entries(request.headers).find(([k]) => /^range$/i.test(k))?.[1] ?? "",
          start: timestamp,
        });
    });
    cdp.on("Network.responseReceived", ({ requestId, response }) =>
      urls.set(requestId, response.url),
    );
    cdp.on("Network.loadingFinished", ({ requestId, encodedDataLength, timestamp }) => {
      const path = new URL(urls.get(requestId) ?? "http://x/").pathname;
      const shard = shardRequests.get(requestId);
      if (shard) shard.end = timestamp;
      // The reader's code only (its bundle), not the page's own harness.
      if (/^\/bench-build\/.*\.(m?js|wasm)$/.test(path)) {
        code.bytes += encodedDataLength;
        code.files.push(path);
      }
    });
    await fetch(`${dataOrigin}/__log/clear`, { method: "POST" });
    const base = image
      ? `${dataOrigin}/images/${image}.zarr`
      : `${dataOrigin}/${path ? "bench.zarr" : "tiles.zarr"}`;
    const query = `base=${encodeURIComponent(base)}${path ? `&path=${path}` : ""}${workers ? `&workers=${workers}` : ""}${suffix ? "&suffix=1" : ""}`;
    await page.goto(`${pageOrigin}${pagePath ?? `/bench/cold/${reader}.html`}?${query}`);
    const view = await (
      await page.waitForFunction(() => window.coldView, null, { timeout: 120000 })
    ).jsonValue();
    if (view.error) throw new Error(`${reader}: ${view.error}`);
    const log = await (await fetch(`${dataOrigin}/__log`)).json();
    const data = log.filter((r) => /^\/((tiles|bench)\.zarr|images)\//.test(r.path));
    // The metadata requests (in the order the server saw them) before the first one for chunk
    // data (a chunk, a shard's index or its inner chunks), and how many of those were 404s.
    const firstChunk = data.findIndex((r) => !METADATA.test(r.path));
    const beforeChunk = data.slice(0, firstChunk < 0 ? data.length : firstChunk);
    return {
      beforeChunk: beforeChunk.length,
      notFoundBeforeChunk: beforeChunk.filter((r) => r.status === 404).length,
      ...view,
      ...phases([...shardRequests.values()], navigationStart, repo),
      codeBytes: code.bytes,
      codeFiles: code.files,
      requests: data.length,
      heads: data.filter((r) => r.method === "HEAD").length,
      preflights: Number(await (await fetch(`${dataOrigin}/__preflights`)).text()),
      bytes: data.reduce((a, r) => a + (r.bytes ?? 0), 0),
    };
  } finally {
    await context.close();
  }
}

const METADATA = /(^|\/)(zarr\.json|\.zarray|\.zgroup|\.zattrs|\.zmetadata)$/;

/**
 * When a page's shard indexes were all in, and when its first request for chunk data left (ms
 * from navigation start): what every reader must wait for before the data phase, and the start of
 * that phase. A shard's index is its last bytes: a suffix range, or a range to the shard's end.
 */
function phases(requests, navigationStart, repo) {
  const ms = (t) => (t - navigationStart) * 1000;
  const sizes = new Map();
  const sizeOf = (path) => {
    if (!sizes.has(path)) sizes.set(path, statSync(`${repo}/bench/data${path}`).size);
    return sizes.get(path);
  };
  const isIndex = ({ path, range }) => {
    if (range.startsWith("bytes=-")) return true;
    const end = /^bytes=\d+-(\d+)$/.exec(range)?.[1];
    return end !== undefined && Number(end) === sizeOf(path) - 1;
  };
  const indexes = requests.filter(isIndex);
  const data = requests.filter((r) => r.range && !isIndex(r));
  return {
    indexesInMs: indexes.length ? Math.max(...indexes.map((r) => ms(r.end ?? r.start))) : 0,
    dataAskedMs: data.length ? Math.min(...data.map((r) => ms(r.start))) : 0,
  };
}

/**
 * `reader`'s page with a preload hint in its head for each file of code `files` (what a plain
 * cold page of it downloaded): the page's own HTML, as a viewer author who knows what the page
 * will load writes it. Modules get `modulepreload`; zarr-wasm's WebAssembly `preload as="fetch"`
 * with `crossorigin`, which its loader's fetch() then takes instead of downloading it again.
 */
function writeHintedPage(repo, reader, files) {
  const links = files.map((f) =>
    f.endsWith(".wasm")
      ? `<link rel="preload" href="${f}" as="fetch" crossorigin />`
      : `<link rel="modulepreload" href="${f}" />`,
  );
  const html = readFileSync(`${repo}/bench/cold/${reader}.html`, "utf8").replace(
    '<meta charset="utf-8" />',
    `<meta charset="utf-8" />\n${links.join("\n")}`,
  );
  writeFileSync(`${repo}/target/bench/cold/${reader}-hinted.html`, html);
  return `/bench-build/cold/${reader}-hinted.html`;
}

// The arrays of bench/data/bench.zarr a page per codec reads: zarr-wasm's module serves them all;
// zarrita.js reads gzip and zlib itself and loads numcodecs.js's lz4, zstd or Blosc for the others.
const CODEC_ARRAYS = ["gzip", "zlib", "lz4", "zstd", "blosc_lz4_shuffle", "blosc_zstd_bitshuffle"];

/** Every scenario, `runs` cold pages per reader, alternating. */
export async function measureColdPages({ repo, runs, firstViewsOnly = false }) {
  await bundleReaders(repo);
  const server = await startServer({
    mounts: {
      "/pkg/": `${repo}/pkg`,
      "/bench/": `${repo}/bench`,
      "/bench-build/": `${repo}/target/bench`,
      "/tiles.zarr/": `${repo}/bench/data/tiles.zarr`,
      "/bench.zarr/": `${repo}/bench/data/bench.zarr`,
      "/images/": `${repo}/target/bench/images`,
    },
    compress: true,
  });
  const port = new URL(server.url).port;
  const browser = await launchChromium();
  const scenarios = [
    { name: "same origin", pages: ["zarr-wasm", "zarrita"], cross: false, throttle: true },
    { name: "cross origin", pages: ["zarr-wasm", "zarrita"], cross: true, throttle: true },
    // The shard indexes by suffix ranges, each after a preflight, against zarr-wasm's default
    // from another origin: HEAD, then explicit ranges (the same round trips, no preflight).
    {
      name: "cross origin, suffix ranges",
      pages: ["zarr-wasm+suffix", "zarr-wasm"],
      cross: true,
      throttle: true,
    },
    // A zarrita.js app's own requests merged (zarr-wasm/zarrita's mergeRanges), against it alone.
    {
      name: "zarrita.js with mergeRanges, same origin",
      pages: ["zarrita+merge", "zarrita"],
      cross: false,
      throttle: true,
    },
    {
      name: "WorkerPool(2), same origin",
      pages: ["zarr-wasm+workers", "zarr-wasm"],
      cross: false,
      throttle: true,
    },
    // Both pages with preload hints for the code they load (found by the first scenario's
    // pages): the wasm, which zarr-wasm's page otherwise asks for only once its JavaScript runs,
    // and zarrita's and numcodecs.js's chunks, otherwise found one import after another.
    {
      name: "same origin, preload hints in each page",
      pages: ["zarr-wasm+hints", "zarrita+hints"],
      cross: false,
      throttle: true,
    },
    {
      name: "unthrottled, same origin",
      pages: ["zarr-wasm", "zarrita"],
      cross: false,
      throttle: false,
    },
  ];
  const results = [];
  const hinted = new Map(); // page -> its hinted HTML, once a plain page has shown its code
  try {
    if (firstViewsOnly) {
      const firstViews = await measureFirstViews(browser, { repo, port, runs });
      return { results, codecPages: [], firstViews, version: browser.version() };
    }
    for (const s of scenarios) {
      const dataOrigin = `http://127.0.0.1:${port}`;
      const pageOrigin = s.cross ? `http://localhost:${port}` : dataOrigin;
      const byPage = Object.fromEntries(s.pages.map((p) => [p, []]));
      const sums = new Set();
      for (let i = 0; i < runs; i++) {
        for (const p of i % 2 ? [...s.pages].reverse() : s.pages) {
          const [reader, workers] =
            p === "zarr-wasm+workers"
              ? ["zarr-wasm", 2]
              : p === "zarrita+merge"
                ? ["zarrita-merge", 0]
                : [p.split("+")[0], 0];
          const run = await coldPage(browser, {
            repo,
            pageOrigin,
            dataOrigin,
            reader,
            page: hinted.get(p),
            workers,
            suffix: p === "zarr-wasm+suffix",
            throttle: s.throttle,
          });
          byPage[p].push(run);
          sums.add(run.sum);
        }
      }
      if (sums.size !== 1)
        throw new Error(`cold pages, ${s.name}: the readers read different values`);
      if (results.length === 0)
        for (const p of s.pages)
          hinted.set(`${p}+hints`, writeHintedPage(repo, p, byPage[p].at(-1).codeFiles));
      results.push({
        scenario: s.name,
        pages: Object.fromEntries(
          Object.entries(byPage).map(([p, rs]) => [
            p,
            {
              runs: rs.length,
              openedMs: median(rs.map((r) => r.openedMs)),
              firstMs: median(rs.map((r) => r.firstMs)),
              allMs: median(rs.map((r) => r.allMs)),
              indexesInMs: median(rs.map((r) => r.indexesInMs)),
              dataAskedMs: median(rs.map((r) => r.dataAskedMs)),
              codeBytes: median(rs.map((r) => r.codeBytes)),
              codeFiles: rs.at(-1).codeFiles,
              requests: rs.at(-1).requests,
              heads: rs.at(-1).heads,
              preflights: rs.at(-1).preflights,
              bytes: rs.at(-1).bytes,
            },
          ]),
        ),
      });
    }
    // A page per codec (an array of bench.zarr each, the same twelve tiles), unthrottled, once per
    // reader: the code it downloads, zarrita.js's with the numcodecs.js codec the array needs.
    const codecPages = [];
    for (const path of CODEC_ARRAYS) {
      const page = { codec: path };
      const sums = new Set();
      for (const reader of ["zarr-wasm", "zarrita"]) {
        const dataOrigin = `http://127.0.0.1:${port}`;
        const run = await coldPage(browser, {
          repo,
          pageOrigin: dataOrigin,
          dataOrigin,
          reader,
          path,
          throttle: false,
        });
        page[reader] = { codeBytes: run.codeBytes, codeFiles: run.codeFiles };
        sums.add(run.sum);
      }
      if (sums.size !== 1)
        throw new Error(`codec pages, ${path}: the readers read different values`);
      codecPages.push(page);
    }
    const firstViews = await measureFirstViews(browser, { repo, port, runs });
    return { results, codecPages, firstViews, version: browser.version() };
  } finally {
    await browser.close();
    await server.close();
  }
}

// The images of the first views (scripts/make_cold_images.py writes them), in table order.
const FIRST_VIEW_IMAGES = {
  ome_v2_lz4: "OME-Zarr 0.4 on Zarr v2, Blosc lz4",
  ome_v2_zlib: "OME-Zarr 0.4 on Zarr v2, zlib",
  v3_gzip: "Zarr v3 (OME-Zarr 0.5), gzip, unsharded",
  v3_lz4: "Zarr v3 (OME-Zarr 0.5), numcodecs.lz4, unsharded",
  v3_sharded_zstd: "Zarr v3 (OME-Zarr 0.5), sharded zstd",
};

const FIRST_VIEW_SCENARIOS = [
  { name: "same origin", cross: false, throttle: true },
  { name: "cross origin", cross: true, throttle: true },
  { name: "unthrottled, same origin", cross: false, throttle: false },
];

/**
 * The first view of each image (bench/cold/first-view.js) on cold pages of both readers, `runs`
 * pages each, alternating, in each scenario: medians, and the requests before the first chunk's.
 */
async function measureFirstViews(browser, { repo, port, runs }) {
  const rows = [];
  // COLD_IMAGES=a,b and COLD_SCENARIOS=x,y (words of their names): some of them only, while
  // working on one.
  const some = (name, all) => {
    const words = process.env[name]?.split(",");
    return words ? all.filter((n) => words.some((w) => n.startsWith(w))) : all;
  };
  const images = some("COLD_IMAGES", Object.keys(FIRST_VIEW_IMAGES));
  const scenarios = some(
    "COLD_SCENARIOS",
    FIRST_VIEW_SCENARIOS.map((s) => s.name),
  );
  for (const [image, label] of Object.entries(FIRST_VIEW_IMAGES)) {
    if (!images.includes(image)) continue;
    for (const s of FIRST_VIEW_SCENARIOS) {
      if (!scenarios.includes(s.name)) continue;
      const dataOrigin = `http://127.0.0.1:${port}`;
      const pageOrigin = s.cross ? `http://localhost:${port}` : dataOrigin;
      const byReader = { "zarr-wasm": [], zarrita: [] };
      const sums = new Set();
      for (let i = 0; i < runs; i++) {
        for (const reader of i % 2 ? ["zarrita", "zarr-wasm"] : ["zarr-wasm", "zarrita"]) {
          const run = await coldPage(browser, {
            repo,
            pageOrigin,
            dataOrigin,
            reader,
            page: `/bench/cold/${reader}-image.html`,
            image,
            throttle: s.throttle,
          });
          byReader[reader].push(run);
          sums.add(run.sum);
        }
      }
      if (sums.size !== 1)
        throw new Error(`first view of ${image}, ${s.name}: the readers read different values`);
      const summary = (rs) => ({
        runs: rs.length,
        firstMs: median(rs.map((r) => r.firstMs)),
        allMs: median(rs.map((r) => r.allMs)),
        codeBytes: median(rs.map((r) => r.codeBytes)),
        beforeChunk: rs.at(-1).beforeChunk,
        notFoundBeforeChunk: rs.at(-1).notFoundBeforeChunk,
        requests: rs.at(-1).requests,
      });
      rows.push({
        image,
        label,
        scenario: s.name,
        "zarr-wasm": summary(byReader["zarr-wasm"]),
        zarrita: summary(byReader.zarrita),
      });
    }
  }
  return rows;
}

/** The first views' table: a row per image and scenario, zarr-wasm against zarrita.js. */
export function firstViewTable({ firstViews }) {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const ms = (n) => `${n.toFixed(0)} ms`;
  const asked = (r) =>
    `${r.beforeChunk}${r.notFoundBeforeChunk ? ` (${r.notFoundBeforeChunk} 404)` : ""}`;
  return [
    "| image | scenario | first pixels, zarr-wasm / zarrita.js | ratio | whole view | ratio | code downloaded | requests before the first chunk's | requests in all |",
    "|---|---|---|---|---|---|---|---|---|",
    ...firstViews.map((v) => {
      const [w, z] = [v["zarr-wasm"], v.zarrita];
      return `| ${v.label} | ${v.scenario} | ${ms(w.firstMs)} / ${ms(z.firstMs)} | ${(w.firstMs / z.firstMs).toFixed(2)}x | ${ms(w.allMs)} / ${ms(z.allMs)} | ${(w.allMs / z.allMs).toFixed(2)}x | ${kib(w.codeBytes)} / ${kib(z.codeBytes)} | ${asked(w)} / ${asked(z)} | ${w.requests} / ${z.requests} |`;
    }),
  ];
}

const LABELS = {
  "zarr-wasm": "zarr-wasm",
  zarrita: "zarrita.js",
  "zarr-wasm+workers": "zarr-wasm, WorkerPool(2, { mainThreadWhileStarting: true })",
  "zarr-wasm+suffix": "zarr-wasm, suffixRequests: true",
  "zarr-wasm+hints": "zarr-wasm, preload hints",
  "zarrita+hints": "zarrita.js, preload hints",
  "zarrita+merge": "zarrita.js, mergeRanges(FetchStore)",
};

/** The report's table: a row per scenario and page, with ratios against the scenario's peer. */
export function coldTable({ results }) {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const rows = [];
  for (const { scenario, pages } of results) {
    const peer = pages.zarrita ?? pages["zarrita+hints"] ?? pages["zarr-wasm"];
    for (const [p, r] of Object.entries(pages)) {
      const vs = (k) => (r === peer ? "" : ` (${(r[k] / peer[k]).toFixed(2)}x)`);
      rows.push(
        `| ${scenario} | ${LABELS[p]} | ${kib(r.codeBytes)} | ${r.openedMs.toFixed(0)} ms | ${r.indexesInMs.toFixed(0)} ms | ${r.dataAskedMs.toFixed(0)} ms | ${r.firstMs.toFixed(0)} ms${vs("firstMs")} | ${r.allMs.toFixed(0)} ms${vs("allMs")} | ${r.requests} (${r.heads} HEAD, ${r.preflights} preflights) | ${(r.bytes / 1e6).toFixed(3)} MB |`,
      );
    }
  }
  return [
    "| scenario | page | code downloaded (on the wire, gzip) | array open | shard indexes in | first data request | first tile (vs peer) | all 12 tiles (vs peer) | data requests | data bytes |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ];
}

/** The table of the pages per codec: the code each reader's page downloads. */
export function codecPagesTable({ codecPages }) {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const files = (r) => r.codeFiles.map((f) => f.split("/").pop()).join(", ");
  return [
    "| array (codec) | zarr-wasm's page | zarrita.js's page, with numcodecs.js | ratio | files, zarrita.js |",
    "|---|---|---|---|---|",
    ...codecPages.map(
      (p) =>
        `| ${p.codec} | ${kib(p["zarr-wasm"].codeBytes)} | ${kib(p.zarrita.codeBytes)} | ${(p["zarr-wasm"].codeBytes / p.zarrita.codeBytes).toFixed(2)}x | ${files(p.zarrita)} |`,
    ),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const repo = new URL("..", import.meta.url).pathname;
  const measured = await measureColdPages({
    repo,
    runs: Number(process.argv[2]) || 7,
    firstViewsOnly: process.argv.includes("--first-views"),
  });
  console.log(`Chromium ${measured.version}`);
  console.log(coldTable(measured).join("\n"));
  console.log(codecPagesTable(measured).join("\n"));
  console.log(firstViewTable(measured).join("\n"));
  for (const { scenario, pages } of measured.results)
    for (const [p, r] of Object.entries(pages)) console.log(scenario, p, r.codeFiles.join(" "));
}
