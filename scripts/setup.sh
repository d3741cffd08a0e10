#!/usr/bin/env bash
# Installs every tool the build and the tests need, skipping what is already present.
# Idempotent: safe to run on every build and test invocation.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
[ -n "$WASM_BINDGEN_VERSION" ] || { echo "setup: cannot read the pinned wasm-bindgen version from Cargo.toml" >&2; exit 1; }

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

want_browser=0
for arg in "$@"; do
  case "$arg" in
    --browser) want_browser=1 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

for component in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$component"; then
    say "adding the $component component"
    rustup component add "$component"
  fi
done

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if ! command -v wasm-bindgen >/dev/null || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if ! command -v wasm-pack >/dev/null; then
  say "installing wasm-pack (about 12 minutes, once)"
  cargo install wasm-pack
fi

if [ "$want_browser" = 1 ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  say "installing Debian chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# tests/js/postgres.test.mjs starts its own PostgreSQL server from Debian's binaries (they live in
# /usr/lib/postgresql/<version>/bin, off PATH); only the package is needed.
if ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null; then
  say "installing Debian postgresql (the server tests/js/postgres.test.mjs runs)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi

# The S3 adapter's tests (tests/js/s3.test.mjs) run against moto's server, an S3 emulator from PyPI:
# no real S3-compatible server (MinIO, Garage, SeaweedFS) installs from the package registries here.
MOTO_VERSION=5.2.5
MOTO_VENV=${ENGRAM_MOTO_VENV:-$HOME/.cache/engram/moto-venv}
if ! "$MOTO_VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('moto') != '$MOTO_VERSION')" 2>/dev/null || [ ! -x "$MOTO_VENV/bin/moto_server" ]; then
  say "installing moto[s3]==$MOTO_VERSION (an S3 emulator for the S3 adapter's tests) into $MOTO_VENV"
  rm -rf "$MOTO_VENV"
  python3 -m venv "$MOTO_VENV"
  "$MOTO_VENV/bin/pip" install --quiet --disable-pip-version-check "moto[s3]==$MOTO_VERSION" "flask==3.1.3" "flask-cors==6.0.5"
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing the dev npm packages (tests and benchmarks)"
  npm ci --no-audit --no-fund --loglevel=error
fi
