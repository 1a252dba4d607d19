/**
 * `toolwire/toolwire.wasm`: the WebAssembly module's file. What an import of it gives depends on the toolchain:
 * - a file loader (esbuild `--loader:.wasm=file`, Bun's `with { type: "file" }`): the file's URL or path, a string.
 *   A URL (in a page or a worker) goes to `initAsync` as it is; a path (Bun, Node) is read first, as fetch cannot:
 *   `initAsync(await Bun.file(path).arrayBuffer())`;
 * - Cloudflare Workers (wrangler, `@cloudflare/vite-plugin`) and other toolchains that import `.wasm` as a module:
 *   the compiled `WebAssembly.Module`, which goes to `initAsync` as it is.
 */
declare const wasm: string | WasmModule;
export default wasm;

/** `WebAssembly.Module`, where the compilation's libraries declare it (else nothing, and the import is a string). */
type WasmModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer M } } } ? M : never;
