// Launches the system's Chromium (Debian's package; Playwright's own browser download is not used).
import { copyFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { chromium } from "playwright-core";

function chromiumPath() {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  for (const c of candidates) if (c && existsSync(c)) return c;
  try {
    return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"])
      .toString()
      .trim();
  } catch {
    throw new Error(
      "no Chromium found: run scripts/setup.sh (installs Debian's chromium) or set CHROMIUM_PATH",
    );
  }
}

/** `args`: more command-line switches (the benchmark's HTTP/2 server wants --ignore-certificate-errors). */
export async function launchChromium({ args = [] } = {}) {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // No sandbox as root; no background traffic to hosts this machine cannot reach.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...args,
    ],
  });
}

/** Opens `url` in a new page and collects its console errors and uncaught exceptions. */
export async function openPage(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
  // Where a failed load names its URL, it follows the message: tests allow the failures they provoke.
  page.on(
    "console",
    (m) =>
      m.type() === "error" &&
      errors.push(`console: ${m.text()}${m.location()?.url ? ` [${m.location().url}]` : ""}`),
  );
  await page.goto(url);
  return { page, errors };
}

/**
 * zarrita.js as one ES module for the test page (which loads modules without a bundler): esbuild
 * bundles it into target/test-bundles/zarrita/, its numcodecs.js codecs in chunks of their own
 * loaded as zarrita asks for them. The page maps the name "zarrita" to it.
 */
export async function bundleZarrita(repo) {
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints: { zarrita: `${repo}/node_modules/zarrita/dist/src/index.js` },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    outdir: `${repo}/target/test-bundles/zarrita`,
    logLevel: "warning",
  });
}

/**
 * The Viv test's page (tests/browser/viv-page.js: Viv's layers, deck.gl and zarr-wasm/viv, the
 * package imported by its name) as esbuild bundles an app, into target/test-bundles/viv/, with
 * the wasm module beside it (esbuild leaves `new URL("./zarr_wasm_bg.wasm", import.meta.url)` as
 * it is). tests/browser/viv.html loads it. Resolves to esbuild's metafile.
 */
export async function bundleViv(repo) {
  const esbuild = await import("esbuild");
  const outdir = `${repo}/target/test-bundles/viv`;
  const { metafile } = await esbuild.build({
    entryPoints: { page: `${repo}/tests/browser/viv-page.js` },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    outdir,
    metafile: true,
    logLevel: "warning",
  });
  copyFileSync(`${repo}/pkg/zarr_wasm_bg.wasm`, `${outdir}/zarr_wasm_bg.wasm`);
  return metafile;
}
