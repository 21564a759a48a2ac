// The import graph between lib/'s folders, and the layers it must respect: dependencies point
// down only (api → views → domains → auth → kernel → db → platform; shared and generated are
// leaves every layer may use). `npm run imports` prints the graph; tools/import-graph.test.ts
// fails on an arrow that climbs back up. ESLint (eslint.config.mjs) says the same in the editor
// for `@/lib/...` imports; this check also resolves relative ones.
import fs from "node:fs";
import path from "node:path";

/** Each folder of lib/ and the folders it may import (besides itself): tools/layers.json. */
export const LAYERS: Record<string, readonly string[]> = (
  JSON.parse(fs.readFileSync(path.join(process.cwd(), "tools/layers.json"), "utf8")) as {
    layers: Record<string, string[]>;
  }
).layers;

const ROOT = process.cwd();
const LIB = path.join(ROOT, "lib");
const SPECIFIER = /(?:from|import)\s*\(?\s*["']([^"']+)["']/g;

/** Every import between two lib/ folders: "from → to" with the files that make it. */
export function importEdges(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of sourceFiles(LIB)) {
    const from = folderOf(file);
    if (!from || from === "generated") continue;
    for (const match of fs.readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const target = resolve(match[1]!, path.dirname(file));
      const to = target ? folderOf(target) : undefined;
      if (!to || to === from) continue;
      const key = `${from} → ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), path.relative(ROOT, file)]);
    }
  }
  return edges;
}

/** The edges no layer allows, each with the files that import so. */
export function layerViolations(edges = importEdges()): string[] {
  return [...edges]
    .filter(([edge]) => {
      const [from, to] = edge.split(" → ") as [string, string];
      return !(LAYERS[from] ?? []).includes(to);
    })
    .map(([edge, files]) => `${edge}: ${[...new Set(files)].join(", ")}`);
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

function folderOf(file: string): string | undefined {
  const relative = path.relative(LIB, file);
  if (relative.startsWith("..")) return undefined;
  const [first, ...rest] = relative.split(path.sep);
  return rest.length ? first : "(root)";
}

function resolve(specifier: string, from: string): string | undefined {
  const base = specifier.startsWith("@/")
    ? path.join(ROOT, specifier.slice(2))
    : specifier.startsWith(".")
      ? path.resolve(from, specifier)
      : undefined;
  if (!base) return undefined;
  return [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")].find(
    (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  const edges = importEdges();
  for (const edge of [...edges.keys()].sort()) console.log(`${edge} (${edges.get(edge)!.length})`);
  const violations = layerViolations(edges);
  console.log(violations.length ? `\n${violations.join("\n")}` : "\nno arrow climbs back up");
  process.exit(violations.length ? 1 : 0);
}
