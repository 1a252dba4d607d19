#!/usr/bin/env bash
# Fuzzes toolwire's hostile-input surfaces with cargo-fuzz (libFuzzer), for a bounded time.
#
#   scripts/fuzz.sh                  every target, FUZZ_SECONDS (60) each
#   scripts/fuzz.sh sse names        only these targets
#   scripts/fuzz.sh --setup-only     install nightly + cargo-fuzz and stop
#
# Targets (fuzz/fuzz_targets/): schema_convert, names, sse, jsonrpc, flatten.
#
# Steps: installs what is missing (rustup's nightly toolchain, cargo-fuzz); builds seed corpora under
# fuzz/corpus/<target>/ from $TOOLWIRE_SHARED (../shared): the corpus tools and the recorded transcripts;
# builds the targets; replays fuzz/regressions/<target>/ (kept crashers, committed); fuzzes each target;
# copies new crashers (minimized too) into fuzz/regressions/<target>/; prints a summary table.
# Exits non-zero when a target crashed (or a kept regression still fails).
#
# Environment: FUZZ_SECONDS (60 per target), FUZZ_RSS_MB (2048), FUZZ_TIMEOUT (30 s per input),
# FUZZ_SANITIZER (none: the crate has no unsafe code, so the speed goes to executions; "address" works),
# FUZZ_TMIN_SECONDS (30, minimizing each new crasher), FUZZ_FORK (1: libFuzzer's -fork=1, which goes on
# past a crash so that every distinct failure is found; 0: stop at the first crash).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

say() { printf 'fuzz: %s\n' "$*"; }
die() { printf 'fuzz: %s\n' "$*" >&2; exit 2; }

ALL_TARGETS=(schema_convert names sse jsonrpc flatten)
# -max_len per target: a tool schema (90% of the corpus schemas are under 4 KB, 98% under 16 KB),
# a set of names, an SSE body, a JSON-RPC body, a content array.
declare -A MAX_LEN=([schema_convert]=16384 [names]=4096 [sse]=16384 [jsonrpc]=16384 [flatten]=8192)

setup_only=0
targets=()
for arg in "$@"; do
  case "$arg" in
    --setup-only) setup_only=1 ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option: $arg" ;;
    *)
      [[ -v MAX_LEN[$arg] ]] || die "unknown target: $arg (targets: ${ALL_TARGETS[*]})"
      targets+=("$arg")
      ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")

seconds=${FUZZ_SECONDS:-60}
rss_mb=${FUZZ_RSS_MB:-2048}
timeout_s=${FUZZ_TIMEOUT:-30}
sanitizer=${FUZZ_SANITIZER:-none}
tmin_seconds=${FUZZ_TMIN_SECONDS:-30}
shared=${TOOLWIRE_SHARED:-$root/../shared}
[[ "$seconds" =~ ^[0-9]+$ ]] || die "FUZZ_SECONDS must be a whole number of seconds, got '$seconds'"

cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$cargo_bin:"*) ;; *) export PATH="$cargo_bin:$PATH" ;; esac
for tool in rustup cargo python3; do
  command -v "$tool" >/dev/null || die "$tool is required but not on PATH"
done

# ---------------------------------------------------------------------------------------------------
# 1. Setup: nightly (libFuzzer needs -Zsanitizer / sanitizer-coverage flags) and cargo-fuzz.
# ---------------------------------------------------------------------------------------------------
setup_start=$(date +%s)
if rustup run nightly rustc --version >/dev/null 2>&1; then
  say "ok: nightly toolchain ($(rustup run nightly rustc --version))"
else
  say "installing the nightly toolchain (rustup, minimal profile)"
  rustup toolchain install nightly --profile minimal
fi

install_cargo_fuzz() {
  if cargo install cargo-fuzz --locked; then return 0; fi
  # The newest release may not resolve with --locked on this registry mirror (a locked dependency
  # missing from it): try the previous releases, newest first, as for wasm-bindgen-cli. The list
  # comes from the index entry cargo itself just fetched for cargo-fuzz.
  local entry
  entry=$(find "${CARGO_HOME:-$HOME/.cargo}/registry/index" -path '*/ca/rg/cargo-fuzz' -type f 2>/dev/null | head -n 1)
  [ -n "$entry" ] || { echo "fuzz: no registry index entry for cargo-fuzz" >&2; return 1; }
  local versions
  versions=$(python3 - "$entry" <<'PY'
import json, re, sys
data = open(sys.argv[1], "rb").read()
seen = []
# cargo's index cache: a header, then "version\0json\0" records (a registry file has one JSON per line).
for line in data.replace(b"\0", b"\n").split(b"\n"):
    line = line.strip()
    start = line.find(b"{")
    if start < 0:
        continue
    try:
        rec = json.loads(line[start:])
    except ValueError:
        continue
    if rec.get("name") == "cargo-fuzz" and not rec.get("yanked") and re.fullmatch(r"\d+\.\d+\.\d+", rec.get("vers", "")):
        seen.append(rec["vers"])
seen = sorted(set(seen), key=lambda v: tuple(map(int, v.split("."))), reverse=True)
print("\n".join(seen[1:9]))
PY
  )
  local v
  for v in $versions; do
    say "cargo-fuzz: trying $v --locked"
    if cargo install cargo-fuzz --version "=$v" --locked; then return 0; fi
  done
  return 1
}

if cargo fuzz --version >/dev/null 2>&1; then
  say "ok: $(cargo fuzz --version)"
else
  say "installing cargo-fuzz (cargo install --locked; takes a minute or two)"
  install_cargo_fuzz || die "could not install cargo-fuzz"
fi
setup_seconds=$(( $(date +%s) - setup_start ))
say "setup took ${setup_seconds}s"
[ "$setup_only" = 1 ] && exit 0

# ---------------------------------------------------------------------------------------------------
# 2. Seeds: fuzz/corpus/<target>/ (generated; what libFuzzer adds there is kept between runs).
# ---------------------------------------------------------------------------------------------------
[ -d "$shared/corpus/tools" ] || die "no corpus at $shared/corpus/tools (set TOOLWIRE_SHARED or SHARED=...)"
say "seeding fuzz/corpus/ from $shared"
python3 - "$shared" fuzz/corpus "${MAX_LEN[schema_convert]}" "${MAX_LEN[names]}" "${MAX_LEN[sse]}" \
  "${MAX_LEN[jsonrpc]}" "${MAX_LEN[flatten]}" <<'PY'
import glob, hashlib, json, os, struct, sys

shared, out = sys.argv[1], sys.argv[2]
limit = dict(zip(["schema_convert", "names", "sse", "jsonrpc", "flatten"], map(int, sys.argv[3:8])))
counts = {}

def seed(target, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > limit[target]:
        return  # libFuzzer would cut it: a cut JSON text is no seed
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "seed-" + hashlib.sha1(data).hexdigest())
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)
    counts[target] = counts.get(target, 0) + 1

def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)

# schema_convert: every tool's inputSchema; whole tools arrays, in windows that fit max_len.
# names: each server's (server, tool) names as raw bytes (arbitrary reads them as it likes).
for f in sorted(glob.glob(os.path.join(shared, "corpus/tools/*.json"))):
    doc = json.load(open(f, encoding="utf-8"))
    server, tools = doc.get("server", ""), doc.get("tools", [])
    window = []
    for t in tools:
        if "inputSchema" in t:
            seed("schema_convert", compact(t["inputSchema"]))
        if len(compact(window + [t]).encode()) > limit["schema_convert"] and window:
            seed("schema_convert", compact(window))
            window = []
        window.append(t)
    if window:
        seed("schema_convert", compact(window))
    names = [t.get("name", "") for t in tools if isinstance(t, dict)]
    for i in range(0, len(names), 16):
        seed("names", "\0".join([server] + names[i:i + 16]))

# schema_convert: schemas with MCP 2026-07-28 x-mcp-header marks, kept and broken (as the conformance suite
# writes them), so that the header rules are fuzzed from the start.
marks = [("Region", "string"), ("Priority", "integer"), ("Verbose", "boolean"), ("", "string"), ("Score", "number"),
         ("My Region", "string"), ("R\u00e9gion", "string"), ("Region\t1", "string"), ("Data", "object")]
for name, ty in marks:
    seed("schema_convert", compact({"type": "object", "properties": {"p": {"type": ty, "x-mcp-header": name},
                                                                     "q": {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Q"}}}}}))
seed("schema_convert", compact({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}}))
seed("schema_convert", compact({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}],
                                "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}}))

# Transcripts: the bodies of every recorded exchange (as tests/transcripts.rs reads them).
def exchanges(text):
    for part in text.split(">>> REQUEST")[1:]:
        if "<<< RESPONSE" not in part:
            continue
        req, resp = part.split("<<< RESPONSE", 1)
        chunks = req.split("\n\n")
        req_body = chunks[1].strip() if len(chunks) > 1 else ""
        lines = resp.split("\n")[1:]
        headers = {}
        i = 1
        while i < len(lines) and lines[i].strip():
            if ":" in lines[i]:
                k, v = lines[i].split(":", 1)
                headers[k.strip().lower()] = v.strip()
            i += 1
        body = "\n".join(lines[i + 1:])
        cut = body.find("\n####")
        if cut >= 0:
            body = body[:cut]
        yield req_body, headers, body

def json_of(s):
    try:
        return json.loads(s)
    except ValueError:
        return None

def tool_results(v):
    """tools/call results inside a JSON-RPC message or batch."""
    for m in v if isinstance(v, list) else [v]:
        r = m.get("result") if isinstance(m, dict) else None
        if isinstance(r, dict) and ("content" in r or "structuredContent" in r):
            yield r

sse_hdr = bytes([0x3f, 0])          # cap 64, no split points (the fuzzer adds them)
flat_hdrs = [bytes([0, 0xff, 0xff, 0x0f]), bytes([0, 0x64, 0, 0x20]), bytes([0, 0x32, 0, 0x80]), bytes([0, 7, 0, 0x80])]
for f in sorted(glob.glob(os.path.join(shared, "fixtures/transcripts/*.txt"))):
    for req_body, headers, body in exchanges(open(f, encoding="utf-8").read()):
        messages = []
        if req_body and json_of(req_body) is not None:
            seed("jsonrpc", req_body)
            messages.append(json_of(req_body))
        ctype = headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "text/event-stream" and body.strip():
            seed("sse", sse_hdr + body.encode())
            # The same stream with CRLF line ends, as some servers send it.
            seed("sse", sse_hdr + body.replace("\n", "\r\n").encode())
            for line in body.split("\n"):
                if line.startswith("data:"):
                    d = line[5:].lstrip(" ")
                    if json_of(d) is not None:
                        seed("jsonrpc", d)
                        messages.append(json_of(d))
        elif body.strip() and json_of(body.strip()) is not None:
            seed("jsonrpc", body.strip())
            messages.append(json_of(body.strip()))
        for m in messages:
            for r in tool_results(m):
                for h in flat_hdrs:
                    seed("flatten", h + compact(r).encode())
                    seed("flatten", h + compact(r.get("content", [])).encode())

# flatten, structured mode: a few starts for the block builder.
for i, h in enumerate(flat_hdrs):
    seed("flatten", bytes([1]) + h[1:] + hashlib.sha256(bytes([i])).digest() * 4)
    seed("flatten", bytes([1]) + h[1:] + "a😀é中\n[Truncated]".encode() * 8)

print("fuzz: seeds: " + ", ".join(f"{t} {counts.get(t, 0)}" for t in limit))
PY

# ---------------------------------------------------------------------------------------------------
# 3. Build (release with debug assertions and overflow checks: cargo-fuzz's default).
# ---------------------------------------------------------------------------------------------------
say "building the fuzz targets (nightly, sanitizer: $sanitizer)"
if ! (cd fuzz && cargo +nightly fuzz build -s "$sanitizer") 2>&1 | sed -E '/^ +(Compiling|Downloaded|Downloading) /d'; then
  die "the fuzz targets do not build"
fi
host=$(rustup run nightly rustc -vV | sed -n 's/^host: //p')
bin_dir="$root/fuzz/target/$host/release"
for t in "${targets[@]}"; do
  [ -x "$bin_dir/$t" ] || die "build did not produce $bin_dir/$t"
done

# ---------------------------------------------------------------------------------------------------
# 4. Replay the kept crashers, then fuzz each target.
# ---------------------------------------------------------------------------------------------------
# Fork mode (one worker process at a time) goes on past a crash, so a known bug does not stop the
# search for others, and every distinct failure of the run is reported. FUZZ_FORK=0: plain libFuzzer,
# which stops at the first crash.
logs="$root/fuzz/artifacts/logs"
mkdir -p "$logs"
findings_txt="$logs/findings.txt"
: >"$findings_txt"
declare -A R_EXECS R_RATE R_COV R_CORP R_SEEDS R_REG R_RESULT R_FOUND
failed=0

# What a failing run's log says: the panic message (or libFuzzer's error line for a timeout / OOM).
panic_of() {
  awk '/panicked at/{p=1} p&&/^(note: run with|==[0-9]+== ERROR|stack backtrace:|MS: [0-9]|SUMMARY:)/{exit} p{print}' "$1" | head -n 40
  grep -m1 -E '==[0-9]+== ERROR: libFuzzer: (timeout|out-of-memory|deadly signal|malloc)|ALARM: working on the last Unit' "$1" || true
}

# A failure's identity, to tell one bug from another: where it panicked, plus the validator rule ids
# it names (schema_convert) or, else, the first line of its message without numbers or quoted text.
signature_of() {
  local log=$1 loc rules first
  loc=$(grep -m1 -oE 'panicked at [^ ]+:[0-9]+:[0-9]+' "$log" | sed -E 's/:[0-9]+$//' || true)
  if [ -z "$loc" ]; then
    grep -m1 -oE 'libFuzzer: (timeout|out-of-memory[^)]*\)?|deadly signal)|ALARM' "$log" | sed -E 's/[0-9]+//g' || echo "failed (no panic message)"
    return
  fi
  rules=$(awk '/panicked at/{p=1;next} p&&/^  [^ ]/{sub(/: .*/, ""); if ($NF ~ /^[a-z0-9-]+\/[a-z0-9-]+$/) print $NF} p&&/^(output:|note:|==|stack backtrace:)/{exit}' "$log" | sort -u | tr '\n' ' ')
  if [ -n "$rules" ]; then
    echo "$loc rules: $rules"
  else
    first=$(awk 'f{print;exit} /panicked at/{f=1}' "$log" | sed -E 's/"([^"\\]|\\.)*"/"…"/g; s/[0-9]+/N/g' | cut -c1-160)
    echo "$loc: $first"
  fi
}

# Runs the target on one input; exit status as libFuzzer gives it.
replay() { "$bin_dir/$1" -rss_limit_mb="$rss_mb" -timeout="$timeout_s" "$2" >"$3" 2>&1; }

for t in "${targets[@]}"; do
  corpus="$root/fuzz/corpus/$t"
  artifacts="$root/fuzz/artifacts/$t"
  regressions="$root/fuzz/regressions/$t"
  mkdir -p "$corpus" "$artifacts"
  R_SEEDS[$t]=$(find "$corpus" -type f | wc -l)
  R_RESULT[$t]=ok
  declare -A known=()

  # Kept crashers first: each one must now pass.
  reg_total=0
  reg_fail=0
  if [ -d "$regressions" ]; then
    while IFS= read -r -d '' f; do
      reg_total=$((reg_total + 1))
      if ! replay "$t" "$f" "$logs/$t.replay.log"; then
        reg_fail=$((reg_fail + 1))
        sig=$(signature_of "$logs/$t.replay.log")
        if [ -z "${known[$sig]:-}" ]; then
          known[$sig]=$f
          { echo "=== $t: kept crasher still fails: fuzz/regressions/$t/$(basename "$f")"; panic_of "$logs/$t.replay.log"; echo; } >>"$findings_txt"
        fi
      fi
    done < <(find "$regressions" -type f ! -name '*.md' ! -name '.*' -print0 | sort -z)
  fi
  R_REG[$t]="$((reg_total - reg_fail))/$reg_total pass"
  [ "$reg_total" -gt 0 ] || R_REG[$t]="none"
  [ "$reg_total" -gt 0 ] && say "$t: kept crashers (fuzz/regressions/$t/): ${R_REG[$t]}"
  if [ "$reg_fail" -gt 0 ]; then
    R_RESULT[$t]=REGRESSION
    failed=1
  fi

  say "$t: fuzzing for ${seconds}s (max_len ${MAX_LEN[$t]}, ${R_SEEDS[$t]} corpus inputs)"
  before=$(mktemp)
  find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | sort >"$before"
  mode_flags=()
  [ "${FUZZ_FORK:-1}" = 0 ] || mode_flags=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  log="$logs/$t.log"
  set +e
  "$bin_dir/$t" "$corpus" "${mode_flags[@]}" \
    -max_total_time="$seconds" -rss_limit_mb="$rss_mb" -max_len="${MAX_LEN[$t]}" -timeout="$timeout_s" \
    -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
  rc=$?
  set -e
  # Executions: libFuzzer's final stats, else its last status line (`#N DONE ... exec/s: E`, or in
  # fork mode `#N: cov: ... exec/s: E ...`).
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [ -n "$execs" ] || execs=$(printf '%s' "$last" | sed -nE 's/^#([0-9]+).*/\1/p')
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  [ -n "$rate" ] || rate=$(printf '%s' "$last" | sed -nE 's/.*exec\/s:? ([0-9]+).*/\1/p')
  R_EXECS[$t]=${execs:-0}
  R_RATE[$t]=${rate:-0}
  R_COV[$t]=$(printf '%s' "$last" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
  R_CORP[$t]=$(printf '%s' "$last" | sed -nE 's/.*corp: ([0-9]+).*/\1/p')

  # New failures, grouped by signature; one input per new signature is kept (the smallest).
  new=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | sort | comm -13 "$before" -)
  rm -f "$before"
  declare -A pick=() count=()
  n_new=0
  for a in $new; do
    n_new=$((n_new + 1))
    replay "$t" "$a" "$logs/$t.one.log" && sig="(does not reproduce alone: $(basename "$a" | cut -d- -f1))" || sig=$(signature_of "$logs/$t.one.log")
    count[$sig]=$(( ${count[$sig]:-0} + 1 ))
    if [ -z "${pick[$sig]:-}" ] || [ "$(wc -c <"$a")" -lt "$(wc -c <"${pick[$sig]}")" ]; then pick[$sig]=$a; fi
  done
  if [ "$rc" -ne 0 ] && [ "$n_new" -eq 0 ]; then
    pick["libFuzzer exited $rc without an artifact"]=""
    count["libFuzzer exited $rc without an artifact"]=1
  fi
  distinct_new=0
  distinct_known=0
  for sig in "${!pick[@]}"; do
    a=${pick[$sig]}
    if [ -n "${known[$sig]:-}" ]; then
      distinct_known=$((distinct_known + 1))
      echo "=== $t: hit again ${count[$sig]} time(s): the kept crasher's failure ($sig)" >>"$findings_txt"
      continue
    fi
    distinct_new=$((distinct_new + 1))
    {
      echo "=== $t: NEW failure, ${count[$sig]} input(s) in this run"
      echo "signature: $sig"
    } >>"$findings_txt"
    if [ -z "$a" ]; then
      { tail -n 30 "$log"; echo; } >>"$findings_txt"
      continue
    fi
    mkdir -p "$regressions"
    name=$(basename "$a")
    cp "$a" "$regressions/$name"
    replay "$t" "$a" "$logs/$t.one.log" || true
    { echo "kept: fuzz/regressions/$t/$name ($(wc -c <"$a") bytes)"; panic_of "$logs/$t.one.log"; } >>"$findings_txt"
    case "$name" in
      crash-*)
        say "$t: minimizing $name (${tmin_seconds}s)"
        min="$regressions/minimized-${name#crash-}"
        "$bin_dir/$t" -minimize_crash=1 -max_total_time="$tmin_seconds" -runs=1000000 -timeout="$timeout_s" \
          -rss_limit_mb="$rss_mb" -exact_artifact_path="$min" "$a" >"$logs/$t.tmin.log" 2>&1 || true
        if [ -s "$min" ] && ! replay "$t" "$min" "$logs/$t.min.log"; then
          min_sig=$(signature_of "$logs/$t.min.log")
          {
            echo "minimized: fuzz/regressions/$t/$(basename "$min") ($(wc -c <"$min") bytes)"
            [ "$min_sig" = "$sig" ] || echo "NOTE: minimizing drifted to another failure: $min_sig"
            echo "minimized input (text): $(head -c 2000 "$min" | LC_ALL=C tr -c '[:print:]\n' '?')"
            echo "minimized input (hex):  $(od -An -tx1 -v "$min" | tr -d ' \n' | head -c 2000)"
            echo "minimized panic:"
            panic_of "$logs/$t.min.log"
          } >>"$findings_txt"
        else
          rm -f "$min"
        fi
        ;;
    esac
    echo >>"$findings_txt"
  done
  R_FOUND[$t]="$distinct_new new"
  [ "$distinct_known" -eq 0 ] || R_FOUND[$t]+=", $distinct_known known"
  [ "$n_new" -eq 0 ] || R_FOUND[$t]+=" ($n_new inputs)"
  if [ "$distinct_new" -gt 0 ]; then
    failed=1
    R_RESULT[$t]=CRASH
  fi
  unset known pick count
done

# ---------------------------------------------------------------------------------------------------
# 5. Summary.
# ---------------------------------------------------------------------------------------------------
echo
printf '| %-14s | %7s | %9s | %12s | %7s | %6s | %6s | %-13s | %-26s | %-10s |\n' \
  target seconds "corpus in" executions "exec/s" cov corpus "kept crashers" "found (distinct failures)" result
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ---------------- ---------: -----------: --------------: ---------: --------: --------: --------------- ---------------------------- ------------
for t in "${targets[@]}"; do
  printf '| %-14s | %7s | %9s | %12s | %7s | %6s | %6s | %-13s | %-26s | %-10s |\n' \
    "$t" "$seconds" "${R_SEEDS[$t]}" "${R_EXECS[$t]}" "${R_RATE[$t]}" "${R_COV[$t]:--}" "${R_CORP[$t]:--}" \
    "${R_REG[$t]}" "${R_FOUND[$t]}" "${R_RESULT[$t]}"
done
echo
say "logs: fuzz/artifacts/logs/; setup took ${setup_seconds}s"
if [ "$failed" = 1 ]; then
  echo
  echo "fuzz: FINDINGS (new crashers are copied into fuzz/regressions/<target>/ and replayed first from now on):"
  cat "$findings_txt"
  exit 1
fi
say "no findings"
