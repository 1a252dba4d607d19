// Where the shared test data lives: $TOOLWIRE_SHARED, else the `shared/` directory beside the repository
// (as in CI, where the clone has ../shared next to it).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = fileURLToPath(new URL("../../", import.meta.url));
export const shared = process.env.TOOLWIRE_SHARED ?? join(repo, "..", "shared");
export const corpusDir = join(shared, "corpus", "tools");

/** Every corpus file, parsed: [{file, path, doc}] sorted by file name. */
export function corpus() {
  return readdirSync(corpusDir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ file, path: join(corpusDir, file), doc: JSON.parse(readFileSync(join(corpusDir, file), "utf8")) }));
}

/**
 * Runs `fn` (sync or async) against the package `tw`: it must throw a ToolwireError with `code` whose message
 * matches `re`, and the module must work on after it. Returns the error.
 */
export async function refusedBy(tw, fn, code, re) {
  let threw = null;
  try {
    await fn();
  } catch (e) {
    threw = e;
  }
  if (!threw) throw new Error("expected an error");
  if (!(threw instanceof tw.ToolwireError)) throw new Error(`expected a ToolwireError, got ${threw?.name}: ${threw?.message}`);
  if (threw.code !== code) throw new Error(`expected ${code}, got ${threw.code}: ${threw.message}`);
  if (re && !re.test(threw.message)) throw new Error(`message ${JSON.stringify(threw.message)} does not match ${re}`);
  // The module works on.
  const works = tw.convertMcpTools([{ name: "t", inputSchema: { type: "object" } }], "openai");
  if (works.length !== 1) throw new Error("the module stopped working after the error");
  return threw;
}
