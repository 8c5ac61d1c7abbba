#!/usr/bin/env bash
# Builds pkg/: the wasm module and its wasm-bindgen glue, beside pkg/'s hand-written index.js.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f target/toolchain.env ] || bash scripts/setup.sh
# shellcheck disable=SC1091
. target/toolchain.env
export PATH="$HOME/.cargo/bin:$PATH"

# A target dir of its own: the wasm build may use another rustc than native `cargo test`.
export CARGO_TARGET_DIR=target/wasm
if [ -n "$WASM_RUSTC" ]; then
  export RUSTC="$WASM_RUSTC" RUSTC_BOOTSTRAP=1
fi
# shellcheck disable=SC2086
"$CARGO" build --release --lib --target wasm32-unknown-unknown $BUILD_STD
# --experimental-reset-state-function: after a trap the API starts a fresh instance (see
# scripts/guard-glue.mjs, which makes the glue report traps).
wasm-bindgen --target web --weak-refs --experimental-reset-state-function --out-dir pkg --out-name zarr_wasm \
  target/wasm/wasm32-unknown-unknown/release/zarr_wasm.wasm
node scripts/guard-glue.mjs pkg/zarr_wasm.js
printf '[build] pkg/zarr_wasm_bg.wasm: %s bytes\n' "$(wc -c < pkg/zarr_wasm_bg.wasm)"
