#!/usr/bin/env bash
# Regenerates the committed fixtures with pinned writers in a local venv (.venv-fixtures).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv-fixtures/bin/python ]; then
  python3 -m venv .venv-fixtures
fi
# libsnappy for the Blosc snappy chunks (numcodecs' c-blosc has no snappy): Debian's binding.
if ! /usr/bin/python3 -c "import snappy" 2>/dev/null; then
  apt-get install -y -q python3-snappy
fi
.venv-fixtures/bin/pip install -q -r scripts/fixtures-requirements.txt
.venv-fixtures/bin/python scripts/make_fixtures.py
