#!/usr/bin/env bash
# Builds pkg/: the wasm modules and their wasm-bindgen glue, beside pkg/'s hand-written index.js.
#   scripts/build.sh                          the package (pkg/)
#   scripts/build.sh --scalar DIR             the package without simd128, into DIR (the
#                                             benchmark's scalar column; tests run it too)
# The main module comes in two builds (issue 33): zarr_wasm (Zarr: metadata, selections, stores,
# the codecs images are written with) and zarr_wasm_full (the same, numcodecs' filters and the
# registry's array codecs, Zarr Vectors, kerchunk references, Icechunk and ZIP archives), which a
# page loads instead the first time it opens a Zarr Vectors store, a ZipStore, a ReferenceStore or
# an IcechunkStore, or
# an array with a codec only the full build has (pkg/load.js, pkg/index.js): a page that reads
# images never downloads it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The main modules never link the extra codecs: they are the second module, built below.
out=pkg target_dir=target/wasm simd=+simd128
case "${1:-}" in
  # Its own target dir: other flags would otherwise rebuild every crate at each switch.
  --scalar) out=${2:?"--scalar needs an output directory"} target_dir=target/wasm-scalar simd=-simd128 ;;
  "") ;;
  *) echo "usage: scripts/build.sh [--scalar DIR]" >&2; exit 2 ;;
esac
[ -f target/toolchain.env ] || bash scripts/setup.sh
# shellcheck disable=SC1091
. target/toolchain.env
export PATH="$HOME/.cargo/bin:$PATH"

# A target dir of its own: the wasm build may use another rustc than native `cargo test`.
export CARGO_TARGET_DIR=$target_dir
if [ -n "$WASM_RUSTC" ]; then
  export RUSTC="$WASM_RUSTC"
fi
# Built for size (issue 33), measured on the Zarr build, gzipped: 416.2 KiB as before; std rebuilt
# from source with the module's profile (BUILD_STD, -Zbuild-std) and no source locations in panic
# messages (-Zlocation-detail=none): 401.5; a panic traps at once, without formatting its message
# (-Cpanic=immediate-abort): 391.5. A panic is a bug either way: it has always ended the instance
# (index.js starts a fresh one); what is lost is its message in the console. Both flags are
# unstable, hence RUSTC_BOOTSTRAP; a rustc without immediate-abort (Debian's) builds without it.
# RUSTFLAGS replaces .cargo/config.toml's flags, so simd128 is set here too.
export RUSTC_BOOTSTRAP=1
rustflags="-C target-feature=$simd -Zlocation-detail=none"
if "${RUSTC:-rustc}" -Zunstable-options -Cpanic=immediate-abort --target wasm32-unknown-unknown \
  --print cfg >/dev/null 2>&1; then
  rustflags="$rustflags -Zunstable-options -Cpanic=immediate-abort"
fi
export RUSTFLAGS="$rustflags"
# binaryen's wasm-opt (pinned in package.json) after wasm-bindgen, to strip the function names
# and producer records: 1392 -> 1216 KiB, 523 -> 473 KiB gzipped. Its -O3 is not run: measured
# (README, "Download size"), it made the module no smaller gzipped (478 KiB) and reads 5-15 %
# slower. The features are those rustc enables for wasm32 by default, and simd128
# (.cargo/config.toml).
strip() {
  node_modules/.bin/wasm-opt --strip-debug --strip-producers --enable-simd --enable-bulk-memory \
    --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
    --enable-reference-types --enable-multivalue "$1" -o "$1"
}
# A module built elsewhere than pkg/ gets the package's hand-written files beside it, so that it
# is a whole package too.
if [ "$out" != pkg ]; then
  mkdir -p "$out"
  cp pkg/index.js pkg/index.d.ts pkg/load.js pkg/options.js pkg/errors.js pkg/pool.js pkg/offthread.js pkg/write.js pkg/stores.js pkg/handles.js pkg/worker.js \
    pkg/fs.js pkg/fs.d.ts pkg/extra.js pkg/package.json "$out/"
fi
# The main modules, each built, then given its glue. --experimental-reset-state-function:
# after a trap the API starts a fresh instance (see scripts/guard-glue.mjs, which makes the glue
# report traps).
# The third, the write build, is the full one with the writer (encoders, stores that write): a
# page loads it at its first write, so a page that only reads downloads none of it.
for name in zarr_wasm zarr_wasm_full zarr_wasm_write; do
  features=bindings
  [ "$name" = zarr_wasm_full ] && features=bindings,vectors,references,icechunk,all-codecs,zip
  [ "$name" = zarr_wasm_write ] && features=bindings,vectors,references,icechunk,all-codecs,zip,write
  # shellcheck disable=SC2086
  "$CARGO" build --release --lib --target wasm32-unknown-unknown $BUILD_STD --no-default-features --features "$features"
  wasm-bindgen --target web --weak-refs --experimental-reset-state-function --out-dir "$out" --out-name "$name" \
    "$target_dir/wasm32-unknown-unknown/release/zarr_wasm.wasm"
  node scripts/guard-glue.mjs "$out/$name.js"
  node scripts/glue-imports.mjs "$out/$name.js" "$out/${name}_bg.wasm"
  strip "$out/${name}_bg.wasm"
done
# shellcheck disable=SC2086
"$CARGO" build --release --lib --target wasm32-unknown-unknown $BUILD_STD -p zarr-wasm-extra-codecs
# The second module (extra-codecs/): its own glue, loaded by pkg/extra.js when an array needs it.
# Its reset function starts a fresh instance after a trap (extra.js).
wasm-bindgen --target web --experimental-reset-state-function --out-dir "$out" --out-name zarr_wasm_extra \
  "$target_dir/wasm32-unknown-unknown/release/zarr_wasm_extra.wasm"
node scripts/glue-imports.mjs "$out/zarr_wasm_extra.js" "$out/zarr_wasm_extra_bg.wasm"
strip "$out/zarr_wasm_extra_bg.wasm"
# Its write build's variant: the decoders and the encoders (bz2, pcodec), loaded by the write
# build instead, so that a page that only reads downloads no encoder.
# shellcheck disable=SC2086
"$CARGO" build --release --lib --target wasm32-unknown-unknown $BUILD_STD -p zarr-wasm-extra-codecs --features encode
wasm-bindgen --target web --experimental-reset-state-function --out-dir "$out" --out-name zarr_wasm_extra_write \
  "$target_dir/wasm32-unknown-unknown/release/zarr_wasm_extra.wasm"
node scripts/glue-imports.mjs "$out/zarr_wasm_extra_write.js" "$out/zarr_wasm_extra_write_bg.wasm"
strip "$out/zarr_wasm_extra_write_bg.wasm"
# The package carries the licences (kept once, at the top of the repository).
cp LICENSE-MIT LICENSE-APACHE "$out/"
for f in zarr_wasm zarr_wasm_full zarr_wasm_write zarr_wasm_extra zarr_wasm_extra_write; do
  printf '[build] %s/%s_bg.wasm: %s bytes\n' "$out" "$f" "$(wc -c < "$out/${f}_bg.wasm")"
done
