#!/usr/bin/env bash
# Builds the npm tarballs a registry would serve, into the git-ignored target/npm/:
#   engram-wasm-<v>.tgz                  pkg/ as built by `node pkg-template/build.mjs`
#   engram-mcp-<v>.tgz                   mcp/, depending on exactly engram-wasm <v>
#   engram-model-minilm-l6-int8-<v>.tgz  the verified model files (scripts/fetch-models.sh) with their license
# <v> is Cargo.toml's version; the package.json files must say the same (checked here). Each tarball
# passes `npm publish --dry-run` (nothing is published). Prints each tarball's measured size.
#   bash scripts/pack.sh        (after `node pkg-template/build.mjs`)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1mpack:\033[0m %s\n' "$*"; }
die() { printf 'pack: %s\n' "$*" >&2; exit 1; }
json() { node -p "const p = require(process.argv[1]); $2" "$PWD/$1"; }

version=$(sed -nE 's/^version = "([^"]+)"/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || die "no version in Cargo.toml"
[ -f pkg/package.json ] || die "pkg/ is not built: run \`node pkg-template/build.mjs\` first"
[ "$(json pkg/package.json p.version)" = "$version" ] || die "pkg/ holds engram-wasm $(json pkg/package.json p.version), Cargo.toml says $version: rebuild pkg/"
for f in pkg-template/package.json mcp/package.json pkg-template/model/package.json; do
  [ "$(json "$f" p.version)" = "$version" ] || die "$f says version $(json "$f" p.version), Cargo.toml says $version"
done
# Exact, so an engram-mcp release always runs the engram-wasm it was tested with.
[ "$(json mcp/package.json 'p.dependencies["engram-wasm"]')" = "$version" ] || die "mcp/package.json must depend on engram-wasm \"$version\" exactly"

model_dir="${ENGRAM_MODEL_DIR:-$PWD/models}"
bash scripts/fetch-models.sh # verifies the files by sha256 (downloads them if absent)

out=target/npm
rm -rf "$out"
mkdir -p "$out/stage"
model_stage="$out/stage/engram-model-minilm-l6-int8"
cp -r pkg-template/model "$model_stage"
cp "$model_dir/model.onnx" "$model_dir/tokenizer.json" "$model_stage/"
# The package's README names each file's sha256: it must name the ones shipped.
for f in model.onnx tokenizer.json; do
  grep -q "$(sha256sum "$model_stage/$f" | awk '{print $1}')" "$model_stage/README.md" || die "pkg-template/model/README.md does not name the sha256 of $f"
done

for dir in pkg mcp "$model_stage"; do
  npm pack --silent --pack-destination "$out" "./$dir" > /dev/null
done
rm -rf "$out/stage"

for name in engram-wasm engram-mcp engram-model-minilm-l6-int8; do
  tgz="$out/$name-$version.tgz"
  [ -f "$tgz" ] || die "npm pack did not write $tgz"
  # What a registry would check (name, version, files); --dry-run publishes nothing.
  npm publish --dry-run --silent --tag latest "$tgz" > /dev/null 2>&1 || { npm publish --dry-run "$tgz" >&2 || true; die "npm publish --dry-run refused $tgz"; }
  say "$tgz $(stat -c %s "$tgz" | awk '{printf "%.2f MiB (%d bytes)", $1 / 1048576, $1}')"
done
