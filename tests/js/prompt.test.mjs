// toolsSystemPrompt at the package boundary: the template's place for the tool list, and what the parameter tree
// and the schema JSON carry (a root allOf, a long quoted name, the items of an object-or-array parameter).
import { test } from "node:test";
import assert from "node:assert/strict";
import { convertMcpTools, toolsSystemPrompt } from "../../pkg/index.mjs";

const weather = [{ name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }];
const weatherList = "## get_weather\nParameters:\n- city (string, optional)";

test("toolsSystemPrompt: {{{tools}}} and spaces inside the braces are the tool list's place; a template without one is refused", () => {
  for (const [template, want] of [
    ["Tools: {{tools}}", `Tools: ${weatherList}`],
    ["Tools: {{{tools}}}", `Tools: ${weatherList}`],
    ["Tools: {{{ tools }}}", `Tools: ${weatherList}`],
    ["Tools: {{  tools }}", `Tools: ${weatherList}`],
    ["Tools: {{{{tools}}}}", `Tools: {${weatherList}}`],
    ["{{no}} {{tools}}", `{{no}} ${weatherList}`],
  ]) {
    assert.equal(toolsSystemPrompt(weather, { template }), want, template);
  }
  for (const template of ["Tools: {tools}", "Tools: {{tool}}", "{{tools}"]) {
    assert.throws(() => toolsSystemPrompt(weather, { template }), { code: "INVALID_OPTIONS" }, template);
  }
});

test("toolsSystemPrompt: a root allOf is merged into the parameters, as convertMcpTools merges it", () => {
  const tool = { name: "create_ticket", inputSchema: { type: "object", allOf: [
    { properties: { title: { type: "string" } }, required: ["title"] },
    { properties: { priority: { type: "string", enum: ["low", "high"] } } },
  ] } };
  const parameters = convertMcpTools([tool], "openai")[0].function.parameters;
  assert.deepEqual(Object.keys(parameters.properties), ["title", "priority"]);
  const want = '## create_ticket\nParameters:\n- title (string, required)\n- priority (string, optional) ["low", "high"]';
  assert.equal(toolsSystemPrompt([tool], { template: "{{tools}}" }), want);
  assert.equal(toolsSystemPrompt([tool], { template: "{{tools}}", maxSchemaChars: 100 }), want);
});

test("toolsSystemPrompt: a quoted property name is written whole, however long", () => {
  const name = "filter[" + "customer.billing_address.".repeat(4) + "postal_code]";
  const out = toolsSystemPrompt([{ name: "search", inputSchema: { type: "object", properties: { [name]: { type: "string" } }, required: [name] } }], { template: "{{tools}}" });
  assert.equal(out, `## search\nParameters:\n- ${JSON.stringify(name)} (string, required)`);
});

test("toolsSystemPrompt: a parameter typed [object, array] keeps its items' properties (in the JSON)", () => {
  const item = { type: "object", properties: { sku: { type: "string" }, qty: { type: "integer" }, note: { type: "string" } }, required: ["sku"] };
  const out = toolsSystemPrompt([{ name: "order", inputSchema: { type: "object", properties: {
    lines: { type: ["object", "array"], properties: { sku: { type: "string" } }, required: ["sku"], items: item },
  } } }], { template: "{{tools}}" });
  assert.match(out, /^## order\nParameters:\n- lines \(object \| array of object, optional\)\n {2}- sku \(string, required\)\nInput schema: \{/);
  const json = JSON.parse(out.slice(out.indexOf("Input schema: ") + "Input schema: ".length));
  assert.deepEqual(json.properties.lines.items, item);
});

test("toolsSystemPrompt: no tools give an empty prompt, whatever the options", () => {
  for (const options of [undefined, { locale: "zh-CN" }, { template: "Tools: {{tools}}" }, { instructions: "Call." }]) {
    assert.equal(toolsSystemPrompt([], options), "", JSON.stringify(options));
  }
  assert.equal(toolsSystemPrompt({ tools: [] }), "");
});
