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
