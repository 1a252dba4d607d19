// The demo's whole use of toolwire: load the web build once, then forward calls.
// www-demo/pkg/ is a copy of the built package (`make demo` puts it there; git-ignored).
import { initAsync, convertMcpTools, checkTools } from "./pkg/web.mjs";

const ready = initAsync();

export async function convert(tools, provider, options) {
  await ready;
  return { tools: convertMcpTools(tools, provider, options), report: checkTools(tools, provider, options) };
}
