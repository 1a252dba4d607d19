#!/usr/bin/env bash
# Builds the npm package into pkg/ (git-ignored):
#   cargo (release, wasm32) -> wasm-bindgen (nodejs + web) -> wasm-opt -Oz (see below) -> pkg-template/ -> version.
# Run `scripts/setup.sh` first (make pkg does).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$cargo_bin:"*) ;; *) export PATH="$cargo_bin:$PATH" ;; esac

wasm_opt=node_modules/.bin/wasm-opt
[ -x "$wasm_opt" ] || { echo "build-pkg: $wasm_opt missing; run scripts/setup.sh" >&2; exit 1; }

say() { printf 'build-pkg: %s\n' "$*"; }

rm -rf pkg

say "cargo build --release --target wasm32-unknown-unknown"
cargo build --lib --release --target wasm32-unknown-unknown

# The module without the MCP client (the crate's `client` feature off), which Node loads for everything
# else (pkg-template/index.cjs) and browsers through `toolwire/convert` (convert.mjs, made from web.mjs
# below): a third smaller, so a process that converts starts sooner. Its own target directory, so that
# neither build makes the other's stale (the dependencies are built once in each).
say "cargo build --release --target wasm32-unknown-unknown --no-default-features (without the MCP client)"
cargo build --lib --release --target wasm32-unknown-unknown --no-default-features --target-dir target/convert

# Each module's glue for Node and for browsers: toolwire (the whole module) and toolwire_convert.
for name in toolwire toolwire_convert; do
  case "$name" in
    toolwire) wasm=target/wasm32-unknown-unknown/release/toolwire.wasm ;;
    toolwire_convert) wasm=target/convert/wasm32-unknown-unknown/release/toolwire.wasm ;;
  esac
  for target in nodejs web; do
    dir=pkg/${target%js}   # nodejs -> node, web -> web
    say "wasm-bindgen --target $target --out-dir $dir --out-name $name"
    wasm-bindgen --target "$target" --out-dir "$dir" --out-name "$name" "$wasm"
    # The public declarations are pkg-template/index.d.ts; these generated ones say `any` everywhere.
    rm -f "$dir/$name.d.ts" "$dir/${name}_bg.wasm.d.ts"
  done
done

# Module type of each build, set explicitly so Node never has to guess (and never warns):
# the nodejs glue is CommonJS; the web glue and wasm-bindgen snippets (inline_js, module = "...") are ESM.
# "types": TypeScript's node10 resolution (which reads no exports map) finds "toolwire/web" and "toolwire/node"
# through these directories' package.json, and would find no declarations there.
echo '{ "type": "commonjs", "types": "../index.d.ts" }' >pkg/node/package.json
echo '{ "type": "module", "types": "../index.d.ts" }' >pkg/web/package.json
if [ -d pkg/node/snippets ]; then echo '{ "type": "module" }' >pkg/node/snippets/package.json; fi

# Tell wasm-opt every feature rustc's wasm32 target emits (rustc 1.95: bulk-memory, multivalue,
# mutable-globals, nontrapping-fptoint, reference-types, sign-ext). wasm-opt also reads the
# target_features section rustc writes and wasm-bindgen keeps, but without that section it assumes MVP
# and rejects the module; naming them keeps this step independent of it. The list comes from the
# compiler in use, not from one rustc's defaults written down here.
features=()
for f in $(rustc --print cfg --target wasm32-unknown-unknown | sed -n 's/^target_feature="\(.*\)"$/\1/p'); do
  case "$f" in
    nontrapping-fptoint) features+=(--enable-nontrapping-float-to-int) ;;
    *) features+=("--enable-$f") ;;
  esac
done
# -ocimfs 20: functions with one caller are inlined only when tiny. Inlining every such function
# (wasm-opt's default) makes the binary smaller raw but compresses worse: 240.5 KB gzip against
# 229.4 KB without it, for the same code and within the noise in speed (bench/README.md, "Size").
# --low-memory-unused: the module never reads or writes its first 1 KB (the stack comes first and
# grows down from 1 MiB towards 0, and would have to be all but exhausted to get there; the data
# starts above 1 MiB), so wasm-opt may fold constant
# offsets below 1 KB into loads and stores (`i32.load offset=N`), which it may not do when an
# address could wrap around to there. --strip-producers: the toolchain's names and versions, which
# nothing reads. Together 1.2 KB of gzip (bench/README.md, "Size").
opt=(-Oz --one-caller-inline-max-function-size 20 --low-memory-unused --strip-producers)
say "wasm-opt ${opt[*]} ${features[*]}"

size() { printf '%s B (gzip %s B)' "$(wc -c <"$1")" "$(gzip -9 -c "$1" | wc -c)"; }
# The two targets' .wasm files are the same module (wasm-bindgen writes the same imports for both): the
# package ships one for both (beside the module without the client, which only Node's entry loads), and the
# nodejs glue reads the web build's. Checked, not assumed. A copy next to the
# glue still comes first: where a bundler has put the glue into an app's bundle, that is where it goes.
# The same holds for the module without the client, whose one file is in web/ too: where a narrow read
# permission (Deno) names one directory, it is the same one.
for bg in toolwire_bg.wasm toolwire_convert_bg.wasm; do
  cmp -s pkg/node/$bg pkg/web/$bg \
    || { echo "build-pkg: the nodejs and web builds' $bg differ; cannot ship one for both" >&2; exit 1; }
  rm pkg/node/$bg
done
# Where the file is not found (a bundle or a single-file executable that took the glue in and kept the
# package's path of build time, a runtime that may not read there), the glue would throw a bare ENOENT
# from readFileSync: it throws a ToolwireError-shaped LOAD_FAILED naming the paths it tried instead.
# Each is read in a try: Deno with a narrow --allow-read throws on merely testing a path it may not read.
# (@FILE@: the .wasm of the glue at hand.)
to=$(cat <<'JS'
const wasmBytes = (() => {
  const loadFailed = (message, cause) => {
    const err = new Error(`toolwire: ${message}`, { cause });
    err.name = "ToolwireError";
    err.code = "LOAD_FAILED";
    return err;
  };
  if (typeof WebAssembly === "undefined") {
    throw loadFailed("this runtime has no WebAssembly (it is turned off, as by node --jitless), and toolwire is WebAssembly: it cannot run here");
  }
  // An ES module bundle (esbuild --format=esm) has neither require nor __dirname: node:fs comes from
  // process.getBuiltinModule (Node 20.16, 22.3), and the file is looked for beside the bundle (the main script).
  let fs;
  try {
    fs = globalThis.process?.getBuiltinModule?.("fs") ?? require("fs");
  } catch (e) {
    throw loadFailed(
      `cannot load node:fs to read its WebAssembly module (${e?.message ?? e}): in an ES module bundle on a Node before 20.16, ` +
        'define require (a banner of import { createRequire } from "node:module"; const require = createRequire(import.meta.url);) ' +
        'or keep toolwire external (README, "Bundlers")',
      e,
    );
  }
  const main = globalThis.process?.argv?.[1];
  const dirs = typeof __dirname === "string" ? [__dirname, `${__dirname}/../web`] : typeof main === "string" ? [main.replace(/[\\/][^\\/]*$/, "")] : [];
  const failed = [];
  for (const p of dirs.map((d) => `${d}/@FILE@`)) {
    try {
      return fs.readFileSync(p);
    } catch (e) {
      failed.push({ p, e });
    }
  }
  const denied = failed.some(({ e }) => e?.code === "EACCES" || e?.name === "NotCapable" || e?.name === "PermissionDenied");
  throw loadFailed(
    `cannot read its WebAssembly module; tried ${failed.map(({ p, e }) => `${p} (${e?.code ?? e?.name ?? e})`).join(", ") || "no path (no __dirname, no main script)"}. ` +
      (denied
        ? "Allow reading the second (Deno: --allow-read=node_modules/toolwire/web) "
        : "A bundle with toolwire's Node build in it reads the file from beside itself (a CommonJS bundle) or beside the main " +
          "script (an ES module bundle); Bun's bundles and single-file executables from where the package was when they were " +
          "built: keep toolwire external, or copy web/@FILE@ next to the bundle, or import toolwire/web and pass " +
          "initAsync the file ") +
      '(README, "Bundlers"; Bun: "Bun, Deno and single-file executables")',
    failed[failed.length - 1]?.e,
  );
})();
JS
)
patch='
  const fs = require("fs");
  const [file, from, to] = process.argv.slice(1);
  const text = fs.readFileSync(file, "utf8");
  if (!text.includes(from)) {
    console.error(`build-pkg: the nodejs glue no longer reads the .wasm as\n${from}\nupdate this step`);
    process.exit(1);
  }
  fs.writeFileSync(file, text.replace(from, () => to));
'
for file in toolwire toolwire_convert; do
  from="const wasmPath = \`\${__dirname}/${file}_bg.wasm\`;"$'\nconst wasmBytes = require(\'fs\').readFileSync(wasmPath);'
  node -e "$patch" pkg/node/$file.js "$from" "${to//@FILE@/${file}_bg.wasm}"
done

for bg in pkg/web/toolwire_bg.wasm pkg/web/toolwire_convert_bg.wasm; do
  before=$(size "$bg")
  "$wasm_opt" "${opt[@]}" "${features[@]}" -o "$bg" "$bg"
  say "$bg: $before -> $(size "$bg")"
done

cp -R pkg-template/. pkg/
# The method guards the Node and web entries share (pkg-template/shared.js) go where each says @shared: one
# text in the source, no module of their own to load (the web entry is one file for the browser).
node -e '
  const fs = require("fs");
  const shared = fs.readFileSync("pkg/shared.js", "utf8");
  for (const file of ["pkg/index.cjs", "pkg/web.mjs"]) {
    const text = fs.readFileSync(file, "utf8");
    const marker = /^\/\* @shared: .*\*\/$/m;
    if (!marker.test(text)) {
      console.error(`build-pkg: ${file} has no @shared line for pkg-template/shared.js`);
      process.exit(1);
    }
    fs.writeFileSync(file, text.replace(marker, () => shared.trimEnd()));
  }
  fs.unlinkSync("pkg/shared.js");
'
# toolwire/convert in browsers and bundlers: the web entry without the MCP client, on the module built without
# it (469 KB of gzip against 709 KB, and a third less to compile). Made from web.mjs, so that the two cannot
# drift: its own glue and .wasm, and the client's classes (between @client-begin and @client-end) left out.
node -e '
  const fs = require("fs");
  let text = fs.readFileSync("pkg/web.mjs", "utf8");
  const swap = (from, to, what) => {
    if (!text.includes(from)) {
      console.error(`build-pkg: web.mjs no longer has ${what} (${from}); update the making of convert.mjs`);
      process.exit(1);
    }
    text = text.split(from).join(to);
  };
  swap("\"./web/toolwire.js\"", "\"./web/toolwire_convert.js\"", "its glue");
  swap("toolwire_bg.wasm", "toolwire_convert_bg.wasm", "its .wasm");
  swap("toolwire/toolwire.wasm", "toolwire/convert.wasm", "its .wasm export");
  swap("const ENTRY_GLUE = \"./toolwire_bg.js\";", "const ENTRY_GLUE = \"./toolwire_convert_bg.js\";", "the glue its module imports");
  swap("import \"toolwire\" (its workerd build loads the module itself), or ", "", "the Workers hint");
  const client = /^\/\/ @client-begin.*\n[^]*?^\/\/ @client-end\n/m;
  if (!client.test(text)) {
    console.error("build-pkg: web.mjs has no @client-begin ... @client-end block; update the making of convert.mjs");
    process.exit(1);
  }
  text = text.replace(client, "");
  const head = "// toolwire/convert: made from web.mjs by scripts/build-pkg.sh, without the MCP client (McpClient, McpHub).\n";
  fs.writeFileSync("pkg/convert.mjs", head + text);
'
cp LICENSE-MIT LICENSE-APACHE pkg/
# One hand-written declaration file serves both module systems: package.json says "type": "module", so
# index.d.ts describes the ESM entries and this copy (.d.cts) the CommonJS one.
cp pkg/index.d.ts pkg/index.d.cts
sed 's#"\./index\.js"#"./index.cjs"#' pkg/convert.d.ts >pkg/convert.d.cts

version=$(sed -nE '/^\[package\]/,/^\[/ s/^version[[:space:]]*=[[:space:]]*"([^"]+)".*/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || { echo "build-pkg: no version in Cargo.toml [package]" >&2; exit 1; }
# JS snippets of the binding (inline_js, module = "...") are ES modules that the CommonJS nodejs glue
# loads with require(): Node supports that from 20.19 and 22.12, so then the engines range must say so.
engines=""
if [ -d pkg/node/snippets ]; then engines="^20.19.0 || >=22.12.0"; fi
node -e '
  const fs = require("fs");
  const [file, version, engines] = process.argv.slice(1);
  const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  pkg.version = version;
  if (engines) pkg.engines.node = engines;
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
' pkg/package.json "$version" "$engines"
chmod +x pkg/bin/toolwire.cjs
say "pkg/ ready: toolwire $version"
