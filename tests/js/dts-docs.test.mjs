// index.d.ts is what editors show: every member of the classes has its JSDoc, and no declaration carries two JSDoc
// blocks (an editor shows only the last; the first goes stale unseen). Read with the TypeScript compiler's parser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const ts = createRequire(import.meta.url)("typescript");
const file = new URL("../../pkg-template/index.d.ts", import.meta.url);
const source = ts.createSourceFile("index.d.ts", readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
const docs = (node) => node.jsDoc ?? [];

function declarations() {
  const found = [];
  const visit = (node) => {
    if (ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isFunctionDeclaration(node)) {
      found.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test("index.d.ts: no declaration has two JSDoc blocks", () => {
  const stacked = [];
  for (const d of declarations()) {
    if (docs(d).length > 1) stacked.push(d.name?.text);
    for (const m of d.members ?? []) if (docs(m).length > 1) stacked.push(`${d.name.text}.${m.name?.getText() ?? "constructor"}`);
  }
  assert.deepEqual(stacked, []);
});

test("index.d.ts: every member of NameMap, ToolCallAccumulator, PermissionPolicy, McpClient and McpHub has JSDoc", () => {
  const classes = ["NameMap", "ToolCallAccumulator", "PermissionPolicy", "McpClient", "McpHub"];
  const missing = [];
  for (const c of declarations().filter((d) => ts.isClassDeclaration(d) && classes.includes(d.name.text))) {
    c.members.forEach((m, i) => {
      if (ts.isConstructorDeclaration(m) && m.modifiers?.some((x) => x.kind === ts.SyntaxKind.PrivateKeyword)) return;
      // An overload is documented by the first of its run.
      const name = m.name?.getText() ?? "constructor";
      const previous = c.members[i - 1];
      const overload = previous !== undefined && (previous.name?.getText() ?? "constructor") === name;
      if (docs(m).length === 0 && !overload) missing.push(`${c.name.text}.${name}`);
    });
  }
  assert.deepEqual(missing, []);
});
