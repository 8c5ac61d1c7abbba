#!/usr/bin/env bash
# Installs what building and testing zarr-wasm need, and skips whatever is already there:
#   1. Rust that can build for wasm32: rustup's target and std source where they can be had,
#      otherwise Debian's rustc-web with its std source (std is built with -Zbuild-std either way:
#      see scripts/build.sh);
#   2. wasm-bindgen-cli of exactly the version Cargo.lock pins;
#   3. Node.js >= 18 and the npm devDependencies;
#   4. Chromium (Debian's) for the browser tests, and its ChromeDriver with wasm-pack (pinned) for
#      the Rust tests in the browser (tests/browser_bindings.rs).
# It writes target/toolchain.env, which scripts/build.sh reads. A second run does nothing slow.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else log "needs root to run: $*"; return 1; fi
}
APT_UPDATED=
apt_install() {
  if [ -z "$APT_UPDATED" ]; then as_root apt-get update -qq >&2; APT_UPDATED=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

mkdir -p target

# --- 1. Rust for wasm32 ------------------------------------------------------------------------
rustup_has_wasm() {
  # grep without -q reads all its input, so rustup never dies of SIGPIPE under pipefail.
  command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -x wasm32-unknown-unknown >/dev/null
}
debian_has_wasm() {
  [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ] && [ -x /usr/bin/rust-lld ] &&
    [ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/src/rust/library/std" ]
}
write_env_rustup() {
  printf 'CARGO=cargo\nWASM_RUSTC=\nBUILD_STD=-Zbuild-std=std,panic_abort\n' > target/toolchain.env
}
write_env_debian() {
  # Debian's rustc ships no wasm32 std, only its source: build it, which needs RUSTC_BOOTSTRAP.
  printf 'CARGO=/usr/bin/cargo\nWASM_RUSTC=/usr/bin/rustc\nBUILD_STD=-Zbuild-std=std,panic_abort\n' > target/toolchain.env
}
if rustup_has_wasm; then
  write_env_rustup
elif debian_has_wasm; then
  write_env_debian
elif command -v rustup >/dev/null && timeout 60 rustup target add wasm32-unknown-unknown >&2; then
  write_env_rustup
else
  log "rustup cannot add wasm32-unknown-unknown here; installing Debian's rustc-web and its std source"
  apt_install -t bookworm-security rustc-web cargo-web rust-web-src rust-web-llvm lld-22
  debian_has_wasm || { log "Debian's Rust for wasm32 is still incomplete"; exit 1; }
  write_env_debian
fi
log "wasm32 toolchain: $(grep '^CARGO=' target/toolchain.env)"

# The lints in scripts/test.sh need clippy and rustfmt; the wasm build rebuilds std from rust-src.
if command -v rustup >/dev/null; then
  installed=$(rustup component list --installed 2>/dev/null || true)
  for component in clippy rustfmt rust-src; do
    case "$installed" in
      *"$component"*) ;;
      *) log "adding rustup component $component"; timeout 120 rustup component add "$component" >&2 ;;
    esac
  done
fi

# --- 2. wasm-bindgen-cli matching Cargo.lock -----------------------------------------------------
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  log "installing wasm-bindgen-cli $want (have: ${have:-none}); this takes a few minutes"
  # Not --locked: its lockfile pins a crate version that this registry no longer serves.
  cargo install wasm-bindgen-cli --version "$want" >&2
fi
export PATH="$HOME/.cargo/bin:$PATH"

# --- 3. Node.js and npm packages -----------------------------------------------------------------
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 18 ]; then
  log "installing Node.js (need >= 18, have ${node_major})"
  apt_install nodejs npm
fi
stamp=node_modules/.setup-stamp
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$lock_hash" ]; then
  log "installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_hash" > "$stamp"
fi

# --- 4. Chromium for browser tests ---------------------------------------------------------------
if ! command -v chromium >/dev/null && [ ! -x /usr/bin/chromium ]; then
  log "installing Debian's chromium"
  apt_install chromium
fi
if [ ! -x /usr/bin/chromedriver ]; then
  log "installing Debian's chromium-driver"
  apt_install chromium-driver
fi
# wasm-pack runs tests/browser_bindings.rs in Chromium (tests/node/wasm-pack.test.mjs). It uses
# the wasm-bindgen-cli above (same version) and the ChromeDriver here; it downloads nothing.
WASM_PACK_VERSION=0.15.1
if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$WASM_PACK_VERSION" ]; then
  log "installing wasm-pack $WASM_PACK_VERSION; this takes a few minutes"
  cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked >&2
fi
log "ready"
