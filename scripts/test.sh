#!/usr/bin/env bash
# Second Quick-start command (and what CI runs via .ci/run): installs what the tests need, skipping
# what is present, then runs every test: native Rust, Node (ESM + CJS) against the built package,
# and a real headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup.sh --browser

echo "test: native core (cargo test)"
cargo test --quiet 2>&1 | grep -v '^$'

echo "test: building pkg/"
node pkg-template/build.mjs
bash scripts/link-pkg.sh

echo "test: Node and Chromium against pkg/"
node --test tests/js/ tests/browser/

echo "test: all passed in $(( $(date +%s) - start )) s"
