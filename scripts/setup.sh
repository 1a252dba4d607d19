#!/usr/bin/env bash
# Installs what building and testing toolwire needs, and nothing that is already there.
#
#   scripts/setup.sh            rustup wasm32 target, wasm-bindgen CLI (version pinned in Cargo.toml),
#                               node_modules (binaryen's wasm-opt, playwright-core, typescript)
#   scripts/setup.sh --browser  also Debian's chromium (for browser tests; never a downloaded browser)
#   scripts/setup.sh --runtimes also Bun and Deno, from their npm packages, into .tools/runtimes (for
#                               tests/runtimes: the package under the other runtimes its README has recipes for)
#
# Idempotent: every step checks first, so a second run only prints "ok" lines and takes about a second.
# CI (.ci/run) runs it on a fresh clone; developers run it through `make setup`.
set -euo pipefail
cd "$(dirname "$0")/.."

browser=0
runtimes=0
# Pinned: the versions tests/runtimes ran against (their npm packages carry the release binaries).
BUN_VERSION=1.4.5
DENO_VERSION=2.9.6
for arg in "$@"; do
  case "$arg" in
    --browser) browser=1 ;;
    --runtimes) runtimes=1 ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

say() { printf 'setup: %s\n' "$*"; }

# cargo install puts binaries here; a fresh shell (CI) may not have it on PATH yet.
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$cargo_bin:"*) ;; *) export PATH="$cargo_bin:$PATH" ;; esac

for tool in rustup cargo node npm; do
  command -v "$tool" >/dev/null || { echo "setup: $tool is required but not on PATH" >&2; exit 1; }
done

# 1. The wasm32 target of the active toolchain.
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "ok: rust target wasm32-unknown-unknown"
else
  say "installing rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen CLI at exactly the version Cargo.toml pins: the CLI refuses a .wasm made by any other
#    version of the wasm-bindgen crate. The pin is read from Cargo.toml so it is written down only once.
wb_version=$(sed -nE 's/^[[:space:]]*wasm-bindgen[[:space:]]*=[[:space:]]*(\{[^}]*version[[:space:]]*=[[:space:]]*)?"=([0-9]+\.[0-9]+\.[0-9]+)".*/\2/p' Cargo.toml | head -n 1)
if [ -z "$wb_version" ]; then
  echo 'setup: Cargo.toml must pin wasm-bindgen exactly (wasm-bindgen = "=X.Y.Z")' >&2
  exit 1
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
have_runner=$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" = "$wb_version" ] && [ "$have_runner" = "$wb_version" ]; then
  say "ok: wasm-bindgen-cli $wb_version"
else
  say "installing wasm-bindgen-cli $wb_version (found: ${have:-none}; takes a few minutes)"
  cargo install wasm-bindgen-cli --version "=$wb_version" --locked --force
fi

# 3. node_modules, from package-lock.json. npm writes node_modules/.package-lock.json on every install,
#    so a lockfile newer than it means the tree is stale.
if [ ! -f package-lock.json ]; then
  say "no package-lock.json: running npm install"
  npm install --no-audit --no-fund
elif [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
  || [ package.json -nt node_modules/.package-lock.json ]; then
  say "installing node_modules (npm ci)"
  npm ci --no-audit --no-fund
else
  say "ok: node_modules"
fi
node_modules/.bin/wasm-opt --version >/dev/null || { echo "setup: node_modules/.bin/wasm-opt does not run" >&2; exit 1; }

# 4. Optional: a system chromium for browser tests (playwright-core drives it; it never downloads one).
if [ "$browser" = 1 ]; then
  if [ -x /usr/bin/chromium ]; then
    say "ok: /usr/bin/chromium"
  else
    say "installing chromium (apt-get)"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  fi
fi

# 5. Optional: Bun and Deno, this platform's builds, each checked by the version it prints; .tools/runtimes/bin
#    links to them (tests/runtimes runs those).
if [ "$runtimes" = 1 ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) bun_pkg=@oven/bun-linux-x64 deno_pkg=@deno/linux-x64-glibc ;;
    Linux-aarch64 | Linux-arm64) bun_pkg=@oven/bun-linux-aarch64 deno_pkg=@deno/linux-arm64-glibc ;;
    Darwin-arm64) bun_pkg=@oven/bun-darwin-aarch64 deno_pkg=@deno/darwin-arm64 ;;
    Darwin-x86_64) bun_pkg=@oven/bun-darwin-x64 deno_pkg=@deno/darwin-x64 ;;
    *) echo "setup: no Bun and Deno builds on npm for $(uname -s) $(uname -m): tests/runtimes cannot run here" >&2; exit 1 ;;
  esac
  bin=.tools/runtimes/bin
  if [ "$("$bin/bun" --version 2>/dev/null || true)" = "$BUN_VERSION" ] \
    && [ "$("$bin/deno" --version 2>/dev/null | head -n 1 | awk '{print $2}' || true)" = "$DENO_VERSION" ]; then
    say "ok: bun $BUN_VERSION, deno $DENO_VERSION ($bin)"
  else
    say "installing bun $BUN_VERSION and deno $DENO_VERSION ($bun_pkg, $deno_pkg) into .tools/runtimes"
    mkdir -p "$bin"
    [ -f .tools/runtimes/package.json ] || echo '{ "name": "toolwire-runtimes", "private": true }' >.tools/runtimes/package.json
    npm install --prefix .tools/runtimes --no-audit --no-fund --save-exact "$bun_pkg@$BUN_VERSION" "$deno_pkg@$DENO_VERSION"
    ln -sf "../node_modules/$bun_pkg/bin/bun" "$bin/bun"
    ln -sf "../node_modules/$deno_pkg/deno" "$bin/deno"
    "$bin/bun" --version >/dev/null && "$bin/deno" --version >/dev/null || { echo "setup: bun or deno does not run" >&2; exit 1; }
  fi
fi

say "done"
