#!/usr/bin/env bash
# Builds pkg/: the wasm module and its wasm-bindgen glue, beside pkg/'s hand-written index.js.
#   scripts/build.sh                          the package (pkg/)
#   scripts/build.sh --without-vectors DIR    the module without Zarr Vectors, into DIR (the
#                                             benchmark's size budget measures it)
#   scripts/build.sh --scalar DIR             the module without simd128, into DIR (the
#                                             benchmark's scalar column; tests run it too)
set -euo pipefail
cd "$(dirname "$0")/.."
# The main module never links the extra codecs: they are the second module, built below.
out=pkg features=(--no-default-features --features bindings,vectors) target_dir=target/wasm
case "${1:-}" in
  --without-vectors) out=${2:?"--without-vectors needs an output directory"} features=(--no-default-features --features bindings) ;;
  # Its own target dir: other flags would otherwise rebuild every crate at each switch.
  --scalar) out=${2:?"--scalar needs an output directory"} target_dir=target/wasm-scalar
    export RUSTFLAGS="-C target-feature=-simd128" ;;
  "") ;;
  *) echo "usage: scripts/build.sh [--without-vectors DIR | --scalar DIR]" >&2; exit 2 ;;
esac
[ -f target/toolchain.env ] || bash scripts/setup.sh
# shellcheck disable=SC1091
. target/toolchain.env
export PATH="$HOME/.cargo/bin:$PATH"

# A target dir of its own: the wasm build may use another rustc than native `cargo test`.
export CARGO_TARGET_DIR=$target_dir
if [ -n "$WASM_RUSTC" ]; then
  export RUSTC="$WASM_RUSTC" RUSTC_BOOTSTRAP=1
fi
# shellcheck disable=SC2086
"$CARGO" build --release --lib --target wasm32-unknown-unknown $BUILD_STD "${features[@]}"
# shellcheck disable=SC2086
"$CARGO" build --release --lib --target wasm32-unknown-unknown $BUILD_STD -p zarr-wasm-extra-codecs
# A module built elsewhere than pkg/ gets the package's hand-written files beside it, so that it
# is a whole package too.
if [ "$out" != pkg ]; then
  mkdir -p "$out"
  cp pkg/index.js pkg/index.d.ts pkg/load.js pkg/errors.js pkg/pool.js pkg/offthread.js pkg/stores.js pkg/worker.js \
    pkg/fs.js pkg/fs.d.ts pkg/extra.js pkg/package.json "$out/"
fi
# --experimental-reset-state-function: after a trap the API starts a fresh instance (see
# scripts/guard-glue.mjs, which makes the glue report traps).
wasm-bindgen --target web --weak-refs --experimental-reset-state-function --out-dir "$out" --out-name zarr_wasm \
  "$target_dir/wasm32-unknown-unknown/release/zarr_wasm.wasm"
node scripts/guard-glue.mjs "$out/zarr_wasm.js"
# The second module (extra-codecs/): its own glue, loaded by pkg/extra.js when an array needs it.
# Its reset function starts a fresh instance after a trap (extra.js).
wasm-bindgen --target web --experimental-reset-state-function --out-dir "$out" --out-name zarr_wasm_extra \
  "$target_dir/wasm32-unknown-unknown/release/zarr_wasm_extra.wasm"
before=$(wc -c < "$out/zarr_wasm_bg.wasm")
# binaryen's wasm-opt (pinned in package.json) after wasm-bindgen, to strip the function names
# and producer records: 1392 -> 1216 KiB, 523 -> 473 KiB gzipped. Its -O3 is not run: measured
# (README, "Download size"), it made the module no smaller gzipped (478 KiB) and reads 5-15 %
# slower. The features are those rustc enables for wasm32 by default, and simd128
# (.cargo/config.toml).
node_modules/.bin/wasm-opt --strip-debug --strip-producers --enable-simd --enable-bulk-memory \
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  --enable-reference-types --enable-multivalue \
  "$out/zarr_wasm_bg.wasm" -o "$out/zarr_wasm_bg.wasm"
node_modules/.bin/wasm-opt --strip-debug --strip-producers --enable-simd --enable-bulk-memory \
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  --enable-reference-types --enable-multivalue \
  "$out/zarr_wasm_extra_bg.wasm" -o "$out/zarr_wasm_extra_bg.wasm"
# The package carries the licences (kept once, at the top of the repository).
cp LICENSE-MIT LICENSE-APACHE "$out/"
printf '[build] %s/zarr_wasm_bg.wasm: %s bytes (%s before wasm-opt); zarr_wasm_extra_bg.wasm: %s bytes\n' \
  "$out" "$(wc -c < "$out/zarr_wasm_bg.wasm")" "$before" "$(wc -c < "$out/zarr_wasm_extra_bg.wasm")"
