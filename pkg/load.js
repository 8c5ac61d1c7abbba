// The main module's WebAssembly, downloaded and compiled once per page: from the moment index.js
// is imported in a page (so that it overlaps the page's own start and its first requests), or
// from preload(), or at the first open(). A WorkerPool hands the compiled module to its workers,
// which then neither download nor compile it again.
import { ZarrError } from "./errors.js";

const wasmUrl = new URL("./zarr_wasm_bg.wasm", import.meta.url);
let compiling = null;

/** The compiled module (a WebAssembly.Module): compiled once; a failure is tried again by the next call. */
export function compiledModule() {
  compiling ??= compile().catch((err) => {
    compiling = null;
    throw err;
  });
  return compiling;
}

/** Uses `module`, compiled elsewhere (a worker's, sent by its pool), instead of compiling one. */
export function useCompiledModule(module) {
  if (module instanceof WebAssembly.Module) compiling = Promise.resolve(module);
}

/**
 * The bytes of the file at `url` where fetch() cannot read it: a file: URL in Node (and Deno,
 * Bun). Undefined elsewhere, where the URL is fetched. Used for both modules (extra.js too).
 */
export async function fileBytes(url) {
  if (url.protocol !== "file:" || !globalThis.process?.versions?.node) return undefined;
  // Bundlers must leave this import alone: webpack is told so, and a name in a variable is one
  // that esbuild and Vite do not try to resolve for the browser.
  const nodeFs = "node:fs/promises";
  const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ nodeFs);
  return readFile(url);
}

async function compile() {
  const bytes = await fileBytes(wasmUrl);
  if (bytes) return WebAssembly.compile(bytes);
  let response;
  try {
    response = await fetch(wasmUrl);
  } catch (err) {
    throw notLoaded(`it could not be fetched (${err?.message ?? err})`, err);
  }
  if (!response.ok) throw notLoaded(`the server answered ${response.status}`);
  // Compiled as it arrives where the server labels it application/wasm; else from its bytes.
  if (response.headers.get("Content-Type")?.startsWith("application/wasm"))
    return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

function notLoaded(why, cause) {
  return new ZarrError(
    `zarr-wasm could not load its WebAssembly module ${wasmUrl}: ${why}. It must be served beside zarr-wasm's index.js (a bundler that leaves it out needs it copied there)`,
    { cause },
  );
}
