#!/usr/bin/env bash
# The main job: installs what is missing, builds the package and the viewer, writes the large
# sample image if it is not there yet (www/data/large.ome.zarr: OME-Zarr, 2 x 3 x 8192 x 8192,
# sharded zstd, by zarr-python; about a minute, once), and serves the viewer with its samples on
# http://127.0.0.1:${PORT:-8080}/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
if [ ! -f www/data/large.ome.zarr/zarr.json ]; then
  bash scripts/make_sample.sh large ||
    echo "[start] the large sample could not be written; the viewer opens the small one (www/data/sample.ome.zarr)" >&2
fi
node scripts/build-www.mjs
exec node scripts/serve.mjs
