// scripts/demo.mjs (make demo) as started from a shell: what it says of its environment before it serves
// anything. The page and the server it starts are tested in tests/browser/demo.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../../scripts/demo.mjs", import.meta.url));
const run = (env) => spawnSync(process.execPath, [script, "--no-config-file"], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 20_000 });

test("demo: a PORT or MCP_PORT that is not a port is named, with what it was, and nothing is served (exit 2)", () => {
  for (const [name, value] of [
    ["PORT", "8o8o"],
    ["PORT", ""],
    ["PORT", "80.5"],
    ["MCP_PORT", "65536"],
  ]) {
    // The other variable valid: the message names the one that is not.
    const r = run({ PORT: "0", MCP_PORT: "0", [name]: value });
    assert.equal(r.status, 2, `${name}=${value}: ${r.stderr}`);
    assert.equal(r.stderr, `demo: ${name} must be a port number from 0 to 65535 (0 = any free port), got ${JSON.stringify(value)}\n`);
    assert.equal(r.stdout, "", "nothing was served");
  }
});
