#!/usr/bin/env bash
# Writes the viewer's sample images with zarr-python (scripts/make_sample.py) in a venv of its own:
#   bash scripts/make_sample.sh small   www/data/sample.ome.zarr (committed; the tests read it)
#   bash scripts/make_sample.sh large   www/data/large.ome.zarr (8192 x 8192; scripts/start.sh
#                                       makes it when it is missing)
# Idempotent: the venv is made once; an image is written to a temporary directory and moved into
# place only when complete.
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-small}
log() { printf '[sample] %s\n' "$*" >&2; }

if [ ! -x .venv-sample/bin/python ]; then
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c "import ensurepip" 2>/dev/null; then
    log "installing python3-venv"
    if [ "$(id -u)" -eq 0 ]; then apt-get install -y -q python3-venv >&2; else sudo apt-get install -y -q python3-venv >&2; fi
  fi
  log "making .venv-sample (zarr-python, numcodecs, numpy)"
  python3 -m venv .venv-sample
fi
if ! .venv-sample/bin/python -c "import zarr, numcodecs, numpy" 2>/dev/null; then
  .venv-sample/bin/pip install -q -r scripts/sample-requirements.txt >&2
fi
log "writing the $which sample"
.venv-sample/bin/python scripts/make_sample.py "$which"
