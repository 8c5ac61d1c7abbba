#!/usr/bin/env bash
# Writes the Zarr Vectors fixtures (tests/fixtures/vectors) with the reference writer, zarr-vectors
# 0.9.2, in a venv of its own (.venv-vectors). Tests never need this: the files are committed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv-vectors/bin/python ]; then
  python3 -m venv .venv-vectors
fi
.venv-vectors/bin/pip install -q -r scripts/vectors-requirements.txt
.venv-vectors/bin/python scripts/make_vectors.py
