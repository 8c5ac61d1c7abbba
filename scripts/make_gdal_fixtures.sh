#!/usr/bin/env bash
# Regenerates tests/fixtures/gdal/, gdal.expected.json and gdal.expected/ (see
# scripts/make_gdal_fixtures.py): Zarr written by GDAL (Debian's gdal-bin and python3-gdal, with
# Debian's own /usr/bin/python3: GDAL 3.6.2 on bookworm), then numcodecs' LZMA with delta filters
# by zarr-python 3 (the pins of scripts/fixtures-requirements.txt, in .venv-fixtures). The tests
# need neither.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! /usr/bin/python3 -c "from osgeo import gdal; import numpy" 2>/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q gdal-bin python3-gdal python3-numpy
fi
/usr/bin/python3 scripts/make_gdal_fixtures.py gdal

if [ ! -x .venv-fixtures/bin/python ]; then
  python3 -m venv .venv-fixtures
fi
# Only the writers this part needs, at the versions the other fixtures pin.
.venv-fixtures/bin/pip install -q $(grep -E '^(zarr|numcodecs|numpy)==' scripts/fixtures-requirements.txt)
.venv-fixtures/bin/python scripts/make_gdal_fixtures.py zarr-python
