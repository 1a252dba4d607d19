/**
 * `toolwire/toolwire.wasm`: the WebAssembly module's file. What an import of it gives depends on the
 * bundler; with a file loader (esbuild `--loader:.wasm=file`) it is the file's URL, to pass to
 * `initAsync(url)`.
 */
declare const url: string;
export default url;
