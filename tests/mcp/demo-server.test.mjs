// The demo's bundled MCP server (www-demo/server.mjs), driven by the built package: a session that listens on
// its standalone stream is not dropped as idle; one that does not listen is. And its tool list changes.
// Run: make pkg && node --test tests/mcp/demo-server.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPkg, waitFor } from "./helpers.mjs";
import { startMcpServer } from "../../www-demo/server.mjs";

const { McpClient } = await loadPkg();

test("demo server: idle sessions are dropped, listening ones are kept; toggle_tools is announced to a listener", async () => {
  const events = [];
  const server = await startMcpServer({ port: 0, idleMs: 400, log: (line) => events.push(line) });
  try {
    const closed = (id) => events.includes(`session ${id} closed`);
    const changes = [];
    const listener = new McpClient(server.url, { onToolListChanged: () => changes.push("changed") });
    const quiet = new McpClient(server.url);
    await listener.connect();
    await quiet.connect();
    const listening = listener.listen();
    // Three idle periods: the quiet session goes, the listening one stays.
    assert.ok(await waitFor(() => closed(quiet.sessionId), { timeoutMs: 5000 }), "the quiet session was dropped");
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(closed(listener.sessionId), false, "the listening session is kept");
    // Its tool list changes, and the listener hears it on the standalone stream.
    const before = (await listener.listTools()).map((t) => t.name);
    assert.equal(before.includes("moon_phase"), false);
    await listener.callTool("toggle_tools", {});
    assert.ok(await waitFor(() => changes.length > 0), "notifications/tools/list_changed heard");
    assert.ok((await listener.listTools()).some((t) => t.name === "moon_phase"));
    const id = listener.sessionId;
    await listener.close();
    assert.equal(await listening, true);
    assert.ok(await waitFor(() => closed(id)), "closed by DELETE");
    quiet.free();
    listener.free();
  } finally {
    await server.close();
  }
});

test("demo server: resources are listed one per page; a bad cursor is refused", async () => {
  const server = await startMcpServer({ port: 0 });
  const client = new McpClient(server.url);
  try {
    await client.connect();
    const first = await client.request("resources/list");
    assert.deepEqual(first.resources.map((r) => r.uri), ["demo://about"]);
    assert.equal(first.nextCursor, "1");
    const second = await client.request("resources/list", { cursor: first.nextCursor });
    assert.deepEqual(second.resources.map((r) => r.uri), ["demo://tools"]);
    assert.equal(second.nextCursor, undefined);
    assert.deepEqual((await client.listAll("resources/list")).map((r) => r.uri), ["demo://about", "demo://tools"]);
    await assert.rejects(client.request("resources/list", { cursor: "7" }), (err) => err.code === "JSONRPC_ERROR" && err.rpcCode === -32602 && /Invalid cursor/.test(err.message));
    const { contents } = await client.request("resources/read", { uri: "demo://tools" });
    assert.match(contents[0].text, /^echo\n/);
  } finally {
    await client.close();
    client.free();
    await server.close();
  }
});
