#!/usr/bin/env bash
# Fuzzes the store's import path (fuzz/fuzz_targets/import.rs) for ENGRAM_FUZZ_SECONDS (default 60).
# Installs cargo-fuzz if it is missing. Starts from the committed seeds (fuzz/seeds/import/), copied
# into a scratch corpus (fuzz/corpus/import/, git-ignored) so new inputs never land in the repo.
# Exits non-zero on a crash, a hang (-timeout) or an oversized allocation; the reproducer is written
# to fuzz/artifacts/import/ (replay: cargo +nightly fuzz run import <file>).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${ENGRAM_FUZZ_SECONDS:-60}

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: installing the nightly toolchain (cargo fuzz needs it)"
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

corpus=fuzz/corpus/import
mkdir -p "$corpus"
cp fuzz/seeds/import/* "$corpus/"

echo "fuzz: import for ${seconds}s"
# -timeout: one input running 10 s is a hang (a crash); libFuzzer's default RSS/malloc limit is 2 GB.
cargo +nightly fuzz run import "$corpus" -- -max_total_time="$seconds" -timeout=10 -print_final_stats=1
