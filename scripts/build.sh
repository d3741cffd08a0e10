#!/usr/bin/env bash
# First Quick-start command: installs what the build needs (skipping what is present), builds the
# native core and the engram-wasm package in pkg/, then runs the main demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/fetch-models.sh
echo "build: native core"
cargo build --release --quiet
echo "build: engram-wasm package (pkg/)"
node pkg-template/build.mjs
bash scripts/link-pkg.sh
echo "build: running the demo (examples/demo.mjs)"
node examples/demo.mjs
echo
echo "The static page in www/ runs the same engine in a browser: node scripts/serve.mjs, then open the URL it prints."
