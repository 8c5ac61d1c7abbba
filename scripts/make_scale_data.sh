#!/usr/bin/env bash
# Writes the scale tests' arrays (scripts/make_scale_data.py) into target/scale-data/ with
# zarr-python and numcodecs in .venv-scale; does nothing when the data of this very generator is
# there already (its hash is the stamp).
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/scale-data
stamp=$(cat scripts/make_scale_data.py scripts/scale-requirements.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then exit 0; fi
if [ ! -x .venv-scale/bin/python ]; then
  python3 -m venv .venv-scale
fi
.venv-scale/bin/pip install -q -r scripts/scale-requirements.txt
rm -rf "$out"
.venv-scale/bin/python scripts/make_scale_data.py "$out"
echo "$stamp" > "$out/.stamp"
du -sh "$out" >&2
