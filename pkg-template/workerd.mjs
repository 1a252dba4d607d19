// Cloudflare Workers (workerd), chosen by the "workerd" export condition (wrangler, @cloudflare/vite-plugin).
// Workers compile no WebAssembly at run time: the .wasm is imported as a module, which the toolchain uploads
// and the runtime compiles at deploy time (a WebAssembly.Module here), and it is instantiated before the
// Worker's first request. Every export of the web entry then works as soon as this module is imported;
// `initAsync()` resolves at once.
import wasm from "./web/toolwire_bg.wasm";
import { initAsync } from "./web.mjs";

await initAsync(wasm);

export * from "./web.mjs";
export { default } from "./web.mjs";
