#!/usr/bin/env bash
# Makes the built pkg/ importable by name (`engram-wasm`) from the repo's tests, demo and benches,
# exactly as an installed dependency would resolve through its package.json exports.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p node_modules
ln -sfn ../pkg node_modules/engram-wasm
