// Built by tests/runtimes/runtimes.test.mjs into a single-file executable (`bun build --compile`): the recipe of the
// package's README, "Bun, Deno and single-file executables", with the .wasm embedded.
import { initAsync, convertMcpTools } from "toolwire/web";
import wasmPath from "toolwire/toolwire.wasm" with { type: "file" };
await initAsync(await Bun.file(wasmPath as string).arrayBuffer());
console.log(JSON.stringify(convertMcpTools([{ name: "a", inputSchema: { type: "object", properties: { x: { type: ["string", "null"] } } } }], "gemini")));
