// zarr-wasm's second module: the decoders too large for the main one (numcodecs' lzma, bz2,
// pcodec and zfpy, the registry's zfp; the README's "Download size" has the numbers). The main
// module imports this file; it loads the second module the first time an array that needs one is
// opened (loadExtra), then calls it synchronously as chunks decode (extraDecode). Both the glue
// and the wasm are fetched only then: a page that never meets these codecs never downloads them.
// It imports nothing of the package but errors.js: load.js, which loads the main module, imports
// this file (and the two helpers below, which both loaders use), never the other way round.

import { ZarrError } from "./errors.js";

// This file's URL apart, for the glue's URL in messages: `new URL("./zarr_wasm_extra.js",
// import.meta.url)` would have bundlers emit the glue a second time, as an asset.
const HERE = import.meta.url;

// The second module's variants: the decoders, and the write build's (the decoders and the
// encoders of bz2 and pcodec), each loaded once; `glue` is the one in use (the write build's
// once loaded: it decodes too).
const VARIANTS = {
  read: {
    glue: () => import("./zarr_wasm_extra.js"),
    wasm: () => new URL("./zarr_wasm_extra_bg.wasm", import.meta.url),
    name: "zarr_wasm_extra",
  },
  write: {
    glue: () => import("./zarr_wasm_extra_write.js"),
    wasm: () => new URL("./zarr_wasm_extra_write_bg.wasm", import.meta.url),
    name: "zarr_wasm_extra_write",
  },
};
const loading = { read: null, write: null };
let glue = null;

/**
 * The bytes of the file at `url` where fetch() cannot read it: a file: URL in Node (and Deno,
 * Bun). Undefined elsewhere, where the URL is fetched. Used for every module (load.js too).
 */
export async function fileBytes(url) {
  if (url.protocol !== "file:" || !globalThis.process?.versions?.node) return undefined;
  // Bundlers must leave this import alone: webpack is told so, and a name in a variable is one
  // that esbuild and Vite do not try to resolve for the browser.
  const nodeFs = "node:fs/promises";
  const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ nodeFs);
  return readFile(url);
}

/** What to do where a file of the package is missing beside the code that loads it (load.js too). */
export const HOW_TO_FIX =
  "A bundler that leaves the package's .wasm files out of its output (esbuild, Rollup) needs them copied from node_modules/zarr-wasm/ into the directory of the bundle: see the README's Bundlers section";

/**
 * Loads the second module once (its variant with the encoders where `withEncoders`: the write
 * build's); a failed load is tried again by the next array that needs it.
 */
export function loadExtra(withEncoders = false) {
  const kind = withEncoders ? "write" : "read";
  if (!withEncoders && loading.write) return loading.write;
  const variant = VARIANTS[kind];
  loading[kind] ??= (async () => {
    const url = variant.wasm();
    // The file that failed is named: its glue (JavaScript) is imported first, then the wasm.
    const failed = (file, err) =>
      new ZarrError(
        `zarr-wasm could not load ${file} of its second module, which ${withEncoders ? "encodes bz2 and pcodec chunks and " : ""}decodes lzma, bz2, pcodec and ZFP chunks: ${err?.message ?? err}. ${HOW_TO_FIX}`,
        { cause: err },
      );
    let module;
    try {
      module = await variant.glue();
    } catch (err) {
      throw failed(
        `the glue ${variant.name}.js from ${new URL(`./${variant.name}.js`, HERE)}`,
        err,
      );
    }
    try {
      // Its bytes where fetch() cannot read its URL (Node), else the URL.
      await module.default({ module_or_path: (await fileBytes(url)) ?? url });
    } catch (err) {
      throw failed(`the WebAssembly ${variant.name}_bg.wasm from ${url}`, err);
    }
    glue = module;
  })().catch((err) => {
    loading[kind] = null;
    throw err;
  });
  return loading[kind];
}

// Bumped when the instance is restarted: the decodes begun before it are gone with it.
let instance = 0;

/** Calls the second module (`g`, the glue in use unless given); throws an Error saying why not. */
function call(f, g = glue) {
  if (!g) throw new Error("zarr-wasm's second module (lzma, bz2, pcodec, ZFP) is not loaded");
  try {
    return f(g);
  } catch (err) {
    // The module throws its own errors as strings; anything else (a trap, a stack overflow,
    // which V8 reports as a RangeError) leaves the instance unusable: start a fresh one for the
    // next chunk. This chunk's read fails with the reason.
    if (typeof err === "string") throw new Error(err);
    g.__wbg_reset_state();
    instance++;
    throw new Error(`the decoder stopped (${err?.message ?? err}); it was restarted`);
  }
}

/**
 * Decodes with the second module (see extra-codecs/src/lib.rs), in steps: `begin` gives a
 * decode's handle, each `step` its next output (about `budget` bytes; undefined once complete),
 * and `end` frees it, complete or not (its read was aborted). Errors are thrown as Errors.
 */
export const extraDecode = {
  // A decode stays with the variant it began in (the write build's may be loaded meanwhile).
  begin: (codec, params, limit, encoded) => ({
    id: call((g) => g.begin(codec, params, limit, encoded)),
    glue,
    instance,
  }),
  step(handle, budget) {
    if (handle.instance !== instance)
      throw new Error("the decoder was restarted after another chunk stopped it");
    return call((g) => g.step(handle.id, budget), handle.glue);
  },
  end(handle) {
    if (handle.instance === instance) handle.glue.end(handle.id);
  },
  /** Encodes with the write build's variant (bz2, pcodec): the encoded bytes. */
  encode(codec, params, data) {
    return call((g) => {
      if (!g.encode) throw new Error("zarr-wasm's second module was loaded without its encoders");
      return g.encode(codec, params, data);
    });
  },
};
