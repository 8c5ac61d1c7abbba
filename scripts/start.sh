#!/usr/bin/env bash
# The main job: installs what is missing, builds the package and the demo viewer, and serves the
# viewer with its bundled sample on http://127.0.0.1:${PORT:-8080}/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
node scripts/build-www.mjs
exec node scripts/serve.mjs
