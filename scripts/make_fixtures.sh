#!/usr/bin/env bash
# Regenerates the committed fixtures with pinned writers in local venvs:
#   bash scripts/make_fixtures.sh        everything
#   bash scripts/make_fixtures.sh v3     the v3 fixtures and the benchmark data
#                                        (zarr-python 3, tensorstore; .venv-fixtures)
#   bash scripts/make_fixtures.sh v2     the v2 fixtures and the ZIP archives (zarr-python 2,
#                                        tensorstore, Info-ZIP; .venv-fixtures-v2; then zarr-python
#                                        3 in v2 mode from .venv-fixtures)
#   bash scripts/make_fixtures.sh v1     the Zarr v1 arrays, from the spec (make_fixtures_v1.py)
#   bash scripts/make_fixtures.sh zarrs  zarrs.zarr, by zarrs (scripts/zarrs-writer, built with cargo)
#   bash scripts/make_fixtures.sh registry  registry.zarr, by hand from the registry's texts
#   bash scripts/make_fixtures.sh extra  extra.zarr and extra_v2.zarr (lzma, bz2, pcodec; v3 venv)
#   bash scripts/make_fixtures.sh references  references/: HDF5 (h5py) and NetCDF-4 (netCDF4) files
#                                        and kerchunk's reference JSON files for them
#                                        (.venv-references)
#   bash scripts/make_fixtures.sh writers  writers/: what other writers put on disk (zarr-python 3.4's
#                                        struct records, netCDF-C's NCZarr; .venv-writers, Python >= 3.12)
#   bash scripts/make_fixtures.sh ome    ome/: OME-Zarr images by ome-zarr-py and ngff-zarr (NGFF 0.4
#                                        and 0.5, with labels; .venv-ome)
#   bash scripts/make_fixtures.sh cold   target/bench/images/: the cold-page benchmark's OME-Zarr
#                                        images by ome-zarr-py (.venv-ome; `npm run bench` makes them;
#                                        not in "all", not committed)
#   bash scripts/make_fixtures.sh icechunk  icechunk/: Icechunk repositories (spec versions 2 and 1)
#                                        by the icechunk package (.venv-icechunk, Python >= 3.12)
#   bash scripts/make_fixtures.sh gdal   gdal/: Zarr written by GDAL (Debian's gdal-bin), and
#                                        numcodecs' LZMA delta chains (scripts/make_gdal_fixtures.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}

venv312() { # venv312 DIR WHAT: a venv made from the first Python >= 3.12 there is
  [ -x "$1/bin/python" ] && return
  for py in python3.13 python3.12 "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3; do
    if command -v "$py" >/dev/null && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
      "$py" -m venv "$1"
      return
    fi
  done
  echo "$2 need Python >= 3.12"
  exit 1
}

venv() { # venv DIR REQUIREMENTS
  if [ ! -x "$1/bin/python" ]; then
    python3 -m venv "$1"
  fi
  "$1/bin/pip" install -q -r "$2"
}

if [ "$which" = all ] || [ "$which" = v3 ]; then
  # libsnappy for the Blosc snappy chunks (numcodecs' c-blosc has no snappy): Debian's binding.
  if ! /usr/bin/python3 -c "import snappy" 2>/dev/null; then
    apt-get install -y -q python3-snappy
  fi
  venv .venv-fixtures scripts/fixtures-requirements.txt
  .venv-fixtures/bin/python scripts/make_fixtures.py
fi
if [ "$which" = all ] || [ "$which" = v2 ]; then
  # Info-ZIP writes the ZIP64 archive (zip -fz).
  command -v zip >/dev/null || apt-get install -y -q zip
  venv .venv-fixtures-v2 scripts/fixtures-v2-requirements.txt
  .venv-fixtures-v2/bin/python scripts/make_fixtures_v2.py
  # zarr-python 3 in v2 mode, from the v3 venv.
  venv .venv-fixtures scripts/fixtures-requirements.txt
  .venv-fixtures/bin/python scripts/make_fixtures_v2.py
fi
if [ "$which" = all ] || [ "$which" = v1 ]; then
  # Zarr v1 arrays written from the spec (no maintained writer exists), with numcodecs' C codecs.
  venv .venv-fixtures-v2 scripts/fixtures-v2-requirements.txt
  (cd scripts && ../.venv-fixtures-v2/bin/python make_fixtures_v1.py)
fi
if [ "$which" = all ] || [ "$which" = zarrs ]; then
  # Its own target dir: a fixture writer's dependencies never mix with the shipped crate's.
  # zarrs' zfp feature builds the ZFP C library (zfp-sys): it needs cmake and libclang.
  for tool in cmake; do command -v $tool >/dev/null || { echo "zarrs-writer needs $tool (apt-get install cmake libclang-dev)"; exit 1; }; done
  CARGO_TARGET_DIR=target/zarrs-writer cargo run --release --manifest-path scripts/zarrs-writer/Cargo.toml
fi
if [ "$which" = all ] || [ "$which" = registry ]; then
  venv .venv-fixtures scripts/fixtures-requirements.txt
  .venv-fixtures/bin/python scripts/make_registry_fixtures.py
fi
if [ "$which" = all ] || [ "$which" = extra ]; then
  venv .venv-fixtures scripts/fixtures-requirements.txt
  .venv-fixtures/bin/python scripts/make_extra_fixtures.py
fi
if [ "$which" = all ] || [ "$which" = gdal ]; then
  bash scripts/make_gdal_fixtures.sh
fi
if [ "$which" = all ] || [ "$which" = references ]; then
  venv .venv-references scripts/references-requirements.txt
  .venv-references/bin/python scripts/make_reference_fixtures.py
fi
if [ "$which" = all ] || [ "$which" = writers ]; then
  # zarr-python 3.4 needs Python 3.12 or later, as icechunk does below.
  venv312 .venv-writers "the writers' fixtures"
  venv .venv-writers scripts/writers-requirements.txt
  .venv-writers/bin/python scripts/make_writer_fixtures.py
fi
if [ "$which" = all ] || [ "$which" = ome ]; then
  venv .venv-ome scripts/ome-requirements.txt
  .venv-ome/bin/python scripts/make_ome_fixtures.py
fi
if [ "$which" = cold ]; then
  venv .venv-ome scripts/ome-requirements.txt
  .venv-ome/bin/python scripts/make_cold_images.py
fi
if [ "$which" = all ] || [ "$which" = icechunk ]; then
  # icechunk 2.x needs Python 3.12 or later.
  venv312 .venv-icechunk "icechunk fixtures"
  venv .venv-icechunk scripts/icechunk-requirements.txt
  .venv-icechunk/bin/python scripts/make_icechunk_fixtures.py
fi
