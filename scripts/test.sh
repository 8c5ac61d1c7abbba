#!/usr/bin/env bash
# Every test: installs what is missing, builds pkg/ and the demo, then runs the lints, the native core tests
# (cargo test), the Node tests and the headless Chromium tests. Every suite runs even if an earlier
# one fails; the exit status is non-zero if any failed, and the last line counts them all.
set -uo pipefail
cd "$(dirname "$0")/.."
# A test run builds every crate once: incremental state would only add gigabytes to target/.
export CARGO_INCREMENTAL=0
bash scripts/setup.sh || exit 1
bash scripts/build.sh || exit 1
# The same module without simd128, whose scalar kernels tests/node/scalar.test.mjs checks.
bash scripts/build.sh --scalar target/scalar-pkg || exit 1
node scripts/build-www.mjs || exit 1
# The scale tests' arrays (about 230 MB), written by zarr-python at test time; skipped when there.
bash scripts/make_scale_data.sh || exit 1
# The viewer's large sample (tests/browser/save.test.mjs saves it as OME-Zarr); skipped when there.
test -f www/data/large.ome.zarr/zarr.json || bash scripts/make_sample.sh large || exit 1
export PATH="$HOME/.cargo/bin:$PATH"

mkdir -p target
status=0
echo "== lints: rustfmt, clippy on the native and wasm32 targets, Biome on the JS"
lint_pass=0
lint_fail=0
lint() {
  echo "-- $*"
  if "$@"; then lint_pass=$((lint_pass + 1)); else lint_fail=$((lint_fail + 1)); status=1; fi
}
# --workspace: the second module's crate (extra-codecs/) too.
lint cargo fmt --all --check
# The codec files are declared by the `codecs!` table in src/codecs/mod.rs, which cargo fmt does not
# follow: rustfmt checks them itself.
lint rustfmt --check --edition 2021 src/codecs/*.rs src/codecs/blosc/mod.rs
lint cargo clippy --workspace --all-targets -- -D warnings
lint cargo clippy --workspace --target wasm32-unknown-unknown -- -D warnings
# The npm package's module without Zarr Vectors and the second module's codecs.
lint cargo clippy --target wasm32-unknown-unknown --no-default-features --features bindings -- -D warnings
lint npx biome ci --colors=off
echo "== native core tests (cargo test)"
cargo test --workspace --all-targets 2>&1 | tee target/test-native.log
native_status=${PIPESTATUS[0]}
echo "== Node and headless Chromium tests (node --test)"
node --test --test-reporter=spec tests/node/*.test.mjs tests/browser/*.test.mjs 2>&1 | tee target/test-js.log
js_status=${PIPESTATUS[0]}

sum() { awk -v key="$2" '{ for (i = 1; i < NF; i++) if ($(i + 1) ~ "^" key) s += $i } END { print s + 0 }' "$1"; }
native_pass=$(grep '^test result:' target/test-native.log | sum /dev/stdin passed)
native_fail=$(grep '^test result:' target/test-native.log | sum /dev/stdin failed)
js_pass=$(awk '/^ℹ pass /{ print $3 }' target/test-js.log | tail -1)
js_fail=$(awk '/^ℹ fail /{ print $3 }' target/test-js.log | tail -1)
# A suite that failed without counting a failure (it did not build, say) counts as one failure.
if [ "$native_status" -ne 0 ]; then status=1; [ "$native_fail" -eq 0 ] && native_fail=1; fi
if [ "$js_status" -ne 0 ]; then status=1; [ "${js_fail:-0}" -eq 0 ] && js_fail=1; fi
passed=$((lint_pass + native_pass + ${js_pass:-0}))
failed=$((lint_fail + native_fail + ${js_fail:-0}))
echo "lints: ${lint_pass} passed, ${lint_fail} failed; native: ${native_pass} passed, ${native_fail} failed; node+chromium: ${js_pass:-0} passed, ${js_fail:-0} failed"
if [ "$passed" -eq 0 ] || [ -z "${js_pass:-}" ]; then status=1; fi
echo "${passed} passed, ${failed} failed"
exit $status
