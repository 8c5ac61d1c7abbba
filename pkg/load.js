// The main module's WebAssembly, downloaded and compiled once per page: from the moment index.js
// is imported in a page (so that it overlaps the page's own start and its first requests), or
// from preload(), or at the first open(). A WorkerPool hands the compiled module to its workers,
// which then neither download nor compile it again.
//
// The main module comes in two builds (scripts/build.sh): "zarr" reads Zarr written with the
// codecs images use; "full" is the same, numcodecs' filters and the registry's array codecs,
// Zarr Vectors, kerchunk references (ReferenceStore) and Icechunk (IcechunkStore), about a third
// larger. A page loads "zarr" unless it asks for more: at its first openVectors(), open() of a
// ReferenceStore or IcechunkStore, or open() of an array with a codec only "full" has (the nodes
// it opened move to the larger instance), or from the start with preload({ full: true }).
// The URLs are written out in full so that bundlers find both files.
import { ZarrError } from "./errors.js";
import { HOW_TO_FIX, extraDecode, fileBytes, loadExtra } from "./extra.js";

const MODULES = {
  zarr: {
    wasm: new URL("./zarr_wasm_bg.wasm", import.meta.url),
    glue: () => import("./zarr_wasm.js"),
  },
  full: {
    wasm: new URL("./zarr_wasm_full_bg.wasm", import.meta.url),
    glue: () => import("./zarr_wasm_full.js"),
  },
  // The full build and the writer (the encoders, stores that write): loaded at the first write.
  write: {
    wasm: new URL("./zarr_wasm_write_bg.wasm", import.meta.url),
    glue: () => import("./zarr_wasm_write.js"),
  },
};
const compiling = { zarr: null, full: null, write: null };
// The modules compiled so far, for those who cannot wait for one (pool.js hands them to workers).
const compiled = { zarr: null, full: null, write: null };

/** Each build reads all that the ones before it read: the larger of two is the one to load. */
const RANK = { zarr: 0, full: 1, write: 2 };

/** The build that does what both `a` and `b` do. */
export function largerKind(a, b) {
  return RANK[a ?? "zarr"] >= RANK[b ?? "zarr"] ? (a ?? "zarr") : b;
}
// This file's URL, for the URLs in messages: held apart so that bundlers do not take
// `new URL(name, import.meta.url)` with a name in a variable for an asset to find.
const HERE = import.meta.url;
// The build a page starts with, until it asks for another: "full" once preload({ full }), a
// ReferenceStore or Zarr Vectors asks for it, or a worker's pool says so.
let chosen = null;

/** The build the page uses from now on ("zarr" unless one was chosen). */
export function chosenKind() {
  return chosen ?? "zarr";
}

/** Chooses the build before anything loads (preload's `full`, a pool's worker). */
export function chooseKind(kind) {
  chosen = kind;
}

/**
 * The compiled module of `kind` (a WebAssembly.Module): compiled once; a failure is tried again
 * by the next call.
 */
export function compiledModule(kind = chosenKind()) {
  compiling[kind] ??= compile(kind).then(
    (module) => (compiled[kind] = module),
    (err) => {
      compiling[kind] = null;
      throw err;
    },
  );
  return compiling[kind];
}

/** The compiled module of `kind` if it has been compiled, else null. */
export function compiledNow(kind) {
  return compiled[kind];
}

/** The glue (wasm-bindgen's JavaScript) of `kind`. */
export async function glueOf(kind) {
  try {
    const glue = await MODULES[kind].glue();
    // The second module's loader and decoder, which the glue does not import itself (a bundle
    // keeps it a chunk of its own: scripts/glue-imports.mjs). The Zarr build has none of the
    // second module's codecs, and no use for them.
    // The write build's loads the variant with the encoders.
    const load = kind === "write" ? () => loadExtra(true) : () => loadExtra();
    glue.__zarrUseExtra?.({ loadExtra: load, extraDecode });
    return glue;
  } catch (err) {
    const name = kind === "zarr" ? "./zarr_wasm.js" : `./zarr_wasm_${kind}.js`;
    throw new ZarrError(
      `zarr-wasm could not import ${name.slice(2)}, the JavaScript of its WebAssembly module, from ${new URL(name, HERE)}: ${err?.message ?? err}. Unbundled, it must be served beside zarr-wasm's index.js; a bundler bundles it (load.js imports it)`,
      { cause: err },
    );
  }
}

/** Uses `module` of `kind`, compiled elsewhere (a worker's, sent by its pool), instead of compiling one. */
export function useCompiledModule(module, kind = "zarr") {
  if (!(module instanceof WebAssembly.Module) || !MODULES[kind]) return;
  compiling[kind] = Promise.resolve(module);
  compiled[kind] = module;
  chosen = kind;
}

async function compile(kind) {
  const url = MODULES[kind].wasm;
  let bytes;
  try {
    bytes = await fileBytes(url);
  } catch (err) {
    throw notLoaded(kind, `it could not be read (${err?.message ?? err})`, err);
  }
  if (bytes) return WebAssembly.compile(bytes);
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw notLoaded(kind, `it could not be fetched (${err?.message ?? err})`, err);
  }
  if (!response.ok) throw notLoaded(kind, `the server answered ${response.status}`);
  // Compiled as it arrives where the server labels it application/wasm; else from its bytes.
  if (response.headers.get("Content-Type")?.startsWith("application/wasm"))
    return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

function notLoaded(kind, why, cause) {
  return new ZarrError(
    `zarr-wasm could not load its WebAssembly module ${fileName(MODULES[kind].wasm)} from ${MODULES[kind].wasm}: ${why}. ${HOW_TO_FIX}`,
    { cause },
  );
}

/** The last part of a URL's path: the file's name. */
export function fileName(url) {
  return url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
}
