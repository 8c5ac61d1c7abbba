#!/usr/bin/env bash
# Makes .venv-readers (zarr-python and numcodecs, scripts/readers-requirements.txt) where it is
# missing or stale, and prints its python's path. Idempotent: the requirements' hash is the stamp.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-readers
stamp=$(sha256sum scripts/readers-requirements.txt | cut -d' ' -f1)
# One maker at a time: tests that read back run side by side.
exec 9>".venv-readers.lock"
flock 9
if [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q -r scripts/readers-requirements.txt >&2
  echo "$stamp" > "$venv/.stamp"
fi
echo "$PWD/$venv/bin/python"
