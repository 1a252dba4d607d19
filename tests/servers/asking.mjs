// The demo's bundled MCP server (www-demo/server.mjs) with two more tools that ask the user something, for the
// browser tests of the page's questions (MCP elicitation). Neither says "elicitation" in its description: the page
// must not need the word to give a person time to answer.
//
//   import { startAskingServer } from "./asking.mjs"; const s = await startAskingServer(); ... await s.close();
//
// Tools, besides the demo's:
//   confirm_order {before_ms, after_ms}  works before_ms, asks "Place the order?" (elicitation/create on the call's
//                                        own stream), works after_ms, then -> "Order placed." or "Order not placed:
//                                        the user chose to <action>."
//   confirm_terms {}                     asks "Name it and accept the terms." with fields named like the page's own
//                                        dialog parts (title, accept, message, required), a choice and an integer -> "answer: <the answer as JSON>"
//   ask_two {second_after_ms}            asks "First question?" and "Second question?" at once (or the second
//                                        second_after_ms later), on the call's stream (each given up after 10 s)
//                                        -> "first: <action>; second: <action>"
//   ask_aside {hold_ms, ask_after_ms}    asks "A question of the server's own: go on?" on the session's standalone
//                                        stream (no related request: not part of this call) after ask_after_ms (default
//                                        0: at once), does not wait for the answer, and returns after hold_ms ->
//                                        "Returned; the question is asked aside." (ask_after_ms > hold_ms: the question
//                                        comes after the call returned)
// `stats`: `cancelled` (the reason of each notifications/cancelled a confirm_order call got), `asides` (the answers
// to ask_aside's questions, or the errors they met).

import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { startMcpServer } from "../../www-demo/server.mjs";

const wait = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("cancelled"));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(new Error("cancelled"));
    }, { once: true });
  });

export async function startAskingServer({ port = 0 } = {}) {
  const stats = { cancelled: [], asides: [] };
  const moreTools = (server) => {
    server.registerTool(
      "confirm_order",
      {
        title: "Confirm order",
        description: "Confirms the order with the user, then places it.",
        inputSchema: {
          before_ms: z.number().int().min(0).max(60_000).optional().describe("Work before asking, in ms (default 0)"),
          after_ms: z.number().int().min(0).max(60_000).optional().describe("Work after the answer, in ms (default 0)"),
        },
      },
      async ({ before_ms = 0, after_ms = 0 }, extra) => {
        extra.signal.addEventListener("abort", () => stats.cancelled.push(String(extra.signal.reason ?? "")), { once: true });
        await wait(before_ms, extra.signal);
        const answer = await extra.sendRequest(
          {
            method: "elicitation/create",
            params: {
              message: "Place the order?",
              requestedSchema: { type: "object", properties: { gift: { type: "boolean", title: "Gift wrap", default: false } } },
            },
          },
          ElicitResultSchema,
          { timeout: 600_000 },
        );
        await wait(after_ms, extra.signal);
        if (answer.action !== "accept") return { content: [{ type: "text", text: `Order not placed: the user chose to ${answer.action}.` }] };
        return { content: [{ type: "text", text: "Order placed." }] };
      },
    );
    server.registerTool(
      "confirm_terms",
      { title: "Confirm terms", description: "Asks for a title, a message and whether the user accepts the terms.", inputSchema: {} },
      async (_args, extra) => {
        const answer = await extra.sendRequest(
          {
            method: "elicitation/create",
            params: {
              message: "Name it and accept the terms.",
              requestedSchema: {
                type: "object",
                properties: {
                  title: { type: "string", title: "Title" },
                  message: { type: "string", title: "Message", default: "hi" },
                  accept: { type: "boolean", title: "I accept the terms" },
                  required: { type: "boolean", title: "Required" },
                  size: { type: "string", title: "Size", enum: ["s", "m", "l"], enumNames: ["Small", "Medium", "Large"], default: "m" },
                  copies: { type: "integer", title: "Copies", description: "How many to print", minimum: 1 },
                },
                required: ["title"],
              },
            },
          },
          ElicitResultSchema,
          { timeout: 600_000 },
        );
        return { content: [{ type: "text", text: `answer: ${JSON.stringify(answer)}` }] };
      },
    );
    server.registerTool(
      "ask_two",
      {
        title: "Ask two",
        description: "Asks the user two things at once (or the second a while after the first).",
        inputSchema: { second_after_ms: z.number().int().min(0).max(10_000).optional().describe("Ask the second this long after the first, in ms (default 0)") },
      },
      async ({ second_after_ms = 0 }, extra) => {
        const ask = (message) =>
          extra
            .sendRequest(
              { method: "elicitation/create", params: { message, requestedSchema: { type: "object", properties: { ok: { type: "boolean", title: "OK" } } } } },
              ElicitResultSchema,
              { timeout: 10_000 },
            )
            .then((a) => a.action, (e) => `no answer (${e.message})`);
        const asked = ask("First question?");
        if (second_after_ms) await wait(second_after_ms, extra.signal).catch(() => {});
        const [first, second] = await Promise.all([asked, ask("Second question?")]);
        return { content: [{ type: "text", text: `first: ${first}; second: ${second}` }] };
      },
    );
    server.registerTool(
      "ask_aside",
      {
        title: "Ask aside",
        description: "Asks the user something on the server's own stream, outside this call, and returns without waiting for the answer.",
        inputSchema: {
          hold_ms: z.number().int().min(0).max(60_000).optional().describe("How long the call runs, in ms (default 1500)"),
          ask_after_ms: z.number().int().min(0).max(60_000).optional().describe("When to ask, in ms after the call came (default 0)"),
        },
      },
      async ({ hold_ms = 1500, ask_after_ms = 0 }, extra) => {
        // No relatedRequestId: the SDK sends it on the session's standalone stream (the page's listen()).
        wait(ask_after_ms)
          .then(() =>
            server.server.elicitInput(
              { message: "A question of the server's own: go on?", requestedSchema: { type: "object", properties: { ok: { type: "boolean", title: "Go on", default: true } } } },
              { timeout: 600_000 },
            ),
          )
          .then(
            (answer) => stats.asides.push(answer),
            (e) => stats.asides.push({ error: e.message }),
          );
        await wait(hold_ms, extra.signal);
        return { content: [{ type: "text", text: "Returned; the question is asked aside." }] };
      },
    );
  };
  const server = await startMcpServer({ port, moreTools });
  return { ...server, stats };
}
