# toolwire: Rust core -> WebAssembly -> npm package (pkg/).
#
#   make setup   install what is missing (rust wasm32 target, wasm-bindgen CLI, node_modules)
#   make test    native cargo tests, wasm-bindgen tests in Node, build pkg/, JS tests on pkg/
#   make pkg     build the npm package into pkg/
#   make demo    build, then serve www-demo/ on http://127.0.0.1:$(PORT)/
#   make bench   time conversion of the shared corpus against the JSON.parse+stringify floor
#   make clean   remove build output

SHARED ?= ../shared
PORT ?= 8080

# cargo install puts wasm-bindgen here; a fresh CI shell may not have it on PATH.
export PATH := $(or $(CARGO_HOME),$(HOME)/.cargo)/bin:$(PATH)
# Where tests/js and bench/ find the corpus (an explicit TOOLWIRE_SHARED wins).
TOOLWIRE_SHARED ?= $(abspath $(SHARED))
export TOOLWIRE_SHARED

.PHONY: setup pkg test test-native test-wasm test-js test-mcp test-conformance test-browser test-runtimes screenshot demo bench clean fuzz lint

setup:
	bash scripts/setup.sh

pkg: setup
	bash scripts/build-pkg.sh

test: setup
	$(MAKE) test-native
	$(MAKE) test-wasm
	$(MAKE) pkg
	$(MAKE) test-js
	$(MAKE) test-mcp
	$(MAKE) test-conformance
	$(MAKE) test-browser
	$(MAKE) test-runtimes

test-native:
	cargo test

# Runs through .cargo/config.toml's runner (wasm-bindgen-test-runner, Node). Test files for it carry
# #![cfg(target_arch = "wasm32")]; native-only tests carry #![cfg(not(target_arch = "wasm32"))].
test-wasm:
	cargo test --target wasm32-unknown-unknown --tests

test-js:
	node --test tests/js/ bench/quick.test.mjs

# The MCP client against real servers on 127.0.0.1: server-everything, our misbehaving test server, and a
# 2026-07-28 server on the TypeScript SDK v2.
test-mcp:
	node --test tests/mcp/

# The official @modelcontextprotocol/conformance client scenarios, 0.1.16's and the 0.2.0 alpha's (2026-07-28, and two at 2025-11-25)
# (Node 22 from npm, installed on demand).
test-conformance:
	bash scripts/conformance.sh --no-build

# The demo page in headless Chromium (Debian's, never a downloaded one; setup.sh --browser installs it).
test-browser:
	bash scripts/setup.sh --browser
	node --test tests/browser/

# Rewrites docs/demo.png, the README's screenshot (test-browser renders it to target/demo.png only).
screenshot:
	bash scripts/setup.sh --browser
	UPDATE_SCREENSHOT=1 node --test tests/browser/demo.test.mjs

# The package under Bun and Deno beside Node (their npm builds, pinned in setup.sh; setup.sh --runtimes installs them).
test-runtimes:
	bash scripts/setup.sh --runtimes
	node --test tests/runtimes/

# Copies pkg/ into www-demo/pkg/, then serves the page on PORT and the bundled MCP server on MCP_PORT.
demo: pkg
	PORT=$(PORT) MCP_PORT=$(or $(MCP_PORT),8081) node scripts/demo.mjs

# The native figures go to a file as well, so bench/run.mjs can print them next to the wasm ones.
# BENCH_QUICK=1 make bench: everything on a tiny input in seconds (bench/quick.test.mjs runs the same).
bench: pkg
	@mkdir -p target
	cargo bench --bench native $(if $(BENCH_QUICK),-- --quick) > target/bench-native.txt
	@cat target/bench-native.txt
	node --expose-gc bench/run.mjs --native target/bench-native.txt

# Converts the corpus 1,000 times in one process and reports memory before and after.
memcheck: pkg
	node --expose-gc scripts/memcheck.mjs $(or $(ROUNDS),1000) $(or $(PROVIDER),gemini)

# cargo-fuzz targets (fuzz/), FUZZ_SECONDS (60) each; installs nightly + cargo-fuzz when missing.
# Replays fuzz/regressions/ first, prints a summary table, fails on any new crash (kept in fuzz/regressions/).
fuzz:
	bash scripts/fuzz.sh

# Clippy on the native core and on the wasm32 build (src/wasm; with and without the `client` feature), warnings as errors.
lint:
	rustup component add clippy >/dev/null 2>&1 || true
	cargo clippy --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib --no-default-features -- -D warnings

clean:
	rm -rf pkg www-demo/pkg
	cargo clean
