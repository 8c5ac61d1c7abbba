// The size budgets of the wasm modules, gzipped at level 9 (what a page downloads). Set a little
// above a module's size when it was set (docs/performance.md, "Download size"), so that growth is
// a decision: the test command fails on a module over its budget (tests/node/size.test.mjs), and
// `npm run bench` reports them beside the sizes and fails too.
//
// Lowered when Zarr Vectors left the module every page loads (issue 33): 438 and 550 KiB before.
// Raised from 410 and 500 KiB (issue 35, measured 418.4 and 538.2): Zarr v1, GDAL's spellings,
// metadata numbers parsed exactly (serde_json's float_roundtrip, about 20 KB of code) and option
// checks in the Zarr build; kerchunk references (about 95 KB of code) in the full one only.
// Lowered from 422 and 168 KiB (issue 33, measured 357.9 and 139.5): std built from source
// without panic messages, numcodecs' filters and the registry's array codecs out of the Zarr
// build. Raised from 542 KiB for the full build (measured 562.3): those codecs, Icechunk and
// Parquet references (issue 35). Lowered from 362 and 568 KiB (issue 33, measured 336.6 and
// 507.5): our own JSON reader, and the reader's crate at opt-level "z" without LTO; then to 332
// (measured 329.4): ZIP archives to the full build; to 328 (325.3): consolidated metadata listed
// without a BTreeMap. Lowered to 287 and 468 KiB (issue 33, measured 283.9 and 464.5): CRC
// tables computed on first use, decimal numbers read without Rust's table of powers of five,
// one sort for every list; then to 280 (277.6): no float formatting in the Zarr build. Lowered
// to 235 and 420 KiB (issue 33, measured 231.7 and 417.2): our own zstd decoder in place of
// structured-zstd. Lowered to 229, 416 and 142 KiB (issue 33, measured 226.9, 413.8 and
// 139.4): short import names (scripts/glue-imports.mjs), JSON text by our own writer. Raised to
// 237 and 430 KiB (issue 46, measured 235.4 and 428.3, from 226.9 and 413.8), a decision for the
// round of fixes: the second module's codecs decoded in steps across its boundary, metadata read
// in parts, the suffix-range probe, the struct data type, the draft check's cache and JS's
// Content-Range checks in the Zarr build; Icechunk's URL normalisation and snapshot bounds, the
// reference and Parquet bounds in the full build. The second module lowered to 112 KiB (measured
// 110.2, from 139.4): our own LZMA decoder in place of lzma-rs. Raised to 238 and 433 KiB
// (issue 46's last items, measured 237.3 and 432.0): a whole answer to a range request kept only
// for its range as it streams in (store::window), the codecs' levels kept for the writer; in the
// full build, reference files and Icechunk's files read in turns of the event loop. The write
// build (issue 47: the full build, the encoders and the writer, loaded at the first write only)
// gets a budget of its own: 640 KiB (measured 636.1, with lz4, delta, shuffle, packbits and the Blosc encoder; structured-zstd's encoder is most of it).
// Issue 47, second part: the Zarr build lowered to 235 KiB, the bound for a page that only
// reads (measured 232.5, from 238.1): the second module's codec files and its loader moved to the
// full build (an array with lzma, bz2, pcodec or ZFP now loads the full build, then the second
// module), after turns in every HTTP body read had taken it past 238. The full build raised to 434
// (measured 433.0: those turns and the strings' layout helpers) and the write build to 644
// (measured 641.1 with the vlen encoders, strings written from JS and writes through a pool; then
// 642.4 with deflate at zlib's levels through miniz_oxide's compressor core and the fallible item
// lists). Raised to 647 (measured 645.5): Blosc's lz4hc by our own HC search, and compression in
// steps for large chunks (zstd through structured-zstd's streaming encoder alone: with its
// one-shot compressor kept beside it the build was 650.5). The second module's variant for the
// write build, loaded instead of it by a page that writes bz2 or pcodec (or reads them after its
// first write): 218 KiB (measured 216.3; pco's compressor is most of what it adds). Then a fetch
// without an answer says what it may be (issue 49: Node's cause by name, CORS or an unreachable
// server in a browser), about a KiB in every build: the Zarr build 234.3 (within its 235), the
// full build raised to 436 (measured 435.0) and the write build to 651 (measured 649.4, with the
// inner chunks compressed in steps and the second module readied at create). Then writes over
// HTTP (issue 48: PUT, DELETE, erasing through a bucket's listing, S3's error documents read):
// the write build raised to 655 (measured 653.8). Then the converter (issue 48: the nodes below a
// group found by listing, for zarr-wasm/convert; filling and comparing against the fill value in
// zarr-wasm-kernels, at speed, which made writing a large shard of zeros three times as fast):
// raised to 656 (measured 655.0). (structured-zstd at opt-level 3 instead of "s" made the build
// 673.2 for 3 % faster zstd writes: not taken; measured again on the converter, no faster.) Then
// the converter's copy in the module (issue 48: src/array/copy.rs, the binding's copyFrom, zstd
// contexts kept between frames; `zarr-wasm convert` of 768 MiB 2.72 -> 1.23 s with two workers):
// the write build raised to 664 (measured 663.1), and the full build to 437 (436.0, 8 bytes over:
// an inner chunk's decoding split out of the read's placing, for the copy).
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const BUDGETS = [
  { what: "the module (Zarr)", file: "zarr_wasm_bg.wasm", budget: 235 * 1024 },
  {
    what: "its full build (all codecs, Zarr Vectors, kerchunk references, Icechunk, ZIP)",
    file: "zarr_wasm_full_bg.wasm",
    budget: 437 * 1024,
  },
  {
    what: "the write build (the full build, the encoders and the writer; loaded at the first write)",
    file: "zarr_wasm_write_bg.wasm",
    budget: 664 * 1024,
  },
  {
    what: "the second module (lzma, bz2, pcodec, ZFP)",
    file: "zarr_wasm_extra_bg.wasm",
    budget: 112 * 1024,
  },
  {
    what: "the second module's variant for the write build (its decoders, and the bz2 and pcodec encoders)",
    file: "zarr_wasm_extra_write_bg.wasm",
    budget: 218 * 1024,
  },
];

/**
 * Each module of the built package (pkg/, by scripts/build.sh) with its gzipped size: `{ what,
 * file, bytes, budget }`.
 */
export function sizeBudgets(pkg = new URL("../pkg/", import.meta.url)) {
  return BUDGETS.map((b) => ({
    ...b,
    bytes: gzipSync(readFileSync(new URL(b.file, pkg)), { level: 9 }).length,
  }));
}
