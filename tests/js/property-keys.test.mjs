// Claude (Anthropic, Bedrock) refuses the whole request when a tool's top-level `properties` has a key outside
// ^[a-zA-Z0-9_.-]{1,64}$ ("tools.N.custom.input_schema.properties: Property keys should match pattern ..."). The
// package renames such keys, reports each rename, and maps a model's arguments back to the server's keys, through
// the object API and the JSON API alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as tw from "../../pkg/index.mjs";

const tools = [
  {
    name: "list_messages",
    description: "Lists messages. Use $filter for OData filters.",
    inputSchema: {
      type: "object",
      properties: {
        $filter: { type: "string", description: "OData filter." },
        $top: { type: "integer" },
        "@odata.type": { type: "string" },
        "If-Match": { type: "string" },
        dollar_top: { type: "string", description: "A literal key that reads as a renamed one." },
        options: { type: "object", properties: { $select: { type: "string" }, dollar_filter: { type: "string" } } },
      },
      required: ["$filter"],
    },
  },
  { name: "plain", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
];

// What the model sends, under the keys it was given, and what the server must get.
const sent = { dollar_filter: "isRead eq false", dollar_top_2: 5, "at_odata.type": "#x", "If-Match": "etag", dollar_top: "lit", options: { $select: "id", dollar_filter: "keep" } };
const expected = { $filter: "isRead eq false", $top: 5, "@odata.type": "#x", "If-Match": "etag", dollar_top: "lit", options: { $select: "id", dollar_filter: "keep" } };

function schemaOf(provider, tool) {
  return provider === "bedrock" ? tool.toolSpec.inputSchema.json : tool.input_schema;
}

for (const provider of ["anthropic", "bedrock"]) {
  for (const strict of [false, true]) {
    test(`${provider}${strict ? " strict" : ""}: refused keys renamed, reported, and mapped back (object API)`, () => {
      const { tools: out, nameMap, report } = tw.convertMcpToolsDetailed(tools, provider, { strict });
      const schema = schemaOf(provider, out[0]);
      assert.deepEqual(Object.keys(schema.properties), ["dollar_filter", "dollar_top_2", "at_odata.type", "If-Match", "dollar_top", "options"]);
      assert.deepEqual(schema.required, ["dollar_filter"]);
      assert.equal(schema.properties.dollar_filter.description, 'OData filter. (sent to the server as "$filter")');
      assert.deepEqual(Object.keys(schema.properties.options.properties), ["$select", "dollar_filter"], "nested keys stay");
      for (const key of Object.keys(schema.properties)) assert.match(key, /^[a-zA-Z0-9_.-]{1,64}$/);
      const renames = report.tools[0].changes.filter((d) => d.rule === `${provider}/property-renamed`);
      assert.deepEqual(renames.map((d) => d.path), ["/properties/$filter", "/properties/$top", "/properties/@odata.type"]);
      assert.match(renames[0].message, /"\$filter".*"dollar_filter"/);
      assert.equal(report.tools[0].strict, strict ? true : undefined);
      assert.deepEqual(nameMap.entries[0].args.renamed, { dollar_filter: "$filter", dollar_top_2: "$top", "at_odata.type": "@odata.type" });

      const map = tw.NameMap.fromJSON(nameMap);
      assert.deepEqual(map.prepareArguments("list_messages", sent), expected);
      assert.deepEqual(map.prepareArguments("list_messages", JSON.stringify(sent)), expected);
      assert.deepEqual(map.prepareArguments("plain", { q: "x" }), { q: "x" });
      // convertMcpTools gives the same tools; NameMap.fromTools the same plan.
      assert.deepEqual(tw.convertMcpTools(tools, provider, { strict }), out);
      assert.deepEqual(tw.NameMap.fromTools(tools, provider, { strict }).prepareArguments("list_messages", sent), expected);
    });

    test(`${provider}${strict ? " strict" : ""}: the JSON API writes the same tools, and calls map back`, () => {
      const text = tw.convertMcpToolsJson(JSON.stringify(tools), provider, { strict });
      assert.deepEqual(JSON.parse(text), tw.convertMcpTools(tools, provider, { strict }));
      const bytes = tw.convertMcpToolsJson(new TextEncoder().encode(JSON.stringify(tools)), provider, { strict });
      assert.deepEqual(JSON.parse(new TextDecoder().decode(bytes)), JSON.parse(text));
      const map = tw.NameMap.fromTools(tools, provider, { strict });
      const response =
        provider === "bedrock"
          ? { output: { message: { role: "assistant", content: [{ toolUse: { toolUseId: "tu_1", name: "list_messages", input: sent } }] } }, stopReason: "tool_use" }
          : { id: "msg_1", type: "message", role: "assistant", model: "claude", stop_reason: "tool_use", content: [{ type: "tool_use", id: "tu_1", name: "list_messages", input: sent }] };
      const [call] = tw.parseToolCalls(response, provider, map);
      assert.equal(call.tool, "list_messages");
      assert.deepEqual(call.arguments, expected);
    });
  }
}

test("OpenAI and Gemini keep the keys; Gemini's parameters report those outside its documented rule", () => {
  for (const provider of ["openai", "openai-responses"]) {
    const { report, nameMap } = tw.convertMcpToolsDetailed(tools, provider);
    assert.equal(nameMap.entries[0].args, undefined, provider);
    assert.ok(report.tools.every((t) => t.problems.every((d) => d.rule !== "gemini/property-name")));
    assert.ok(JSON.stringify(tw.convertMcpTools(tools, provider)).includes('"$filter"'));
  }
  for (const provider of ["gemini", "vertex"]) {
    const { tools: out, report } = tw.convertMcpToolsDetailed(tools, provider);
    assert.ok("$filter" in out[0].functionDeclarations[0].parameters.properties, "not renamed");
    const paths = report.tools[0].problems.filter((d) => d.rule === "gemini/property-name").map((d) => d.path);
    assert.deepEqual(paths, ["/properties/$filter", "/properties/$top", "/properties/@odata.type", "/properties/If-Match", "/properties/options/properties/$select"]);
    const json = tw.checkTools(tools, provider, { geminiMode: "parametersJsonSchema" });
    assert.ok(json.tools[0].problems.every((d) => d.rule !== "gemini/property-name"), "parametersJsonSchema: nothing");
  }
});
