// npm run routes:generate: writes app/api/**/route.ts from the operation contracts
// (lib/api/operations): one file per path, serving the operations declared at it. The files
// are committed (Next.js finds routes by file); tools/generate-routes.test.ts fails when one
// differs from what this writes, or a route file exists that no operation declares.
import fs from "node:fs";
import path from "node:path";
import { format, resolveConfig } from "prettier";
import type { Operation } from "@/lib/api/operation";

const ROOT = process.cwd();
const OPERATIONS_DIR = path.join(ROOT, "lib/api/operations");
/** Route files that are not the API's contract: the development hooks and the JSON 404. */
export const NOT_CONTRACT = ["app/api/dev/[hook]/route.ts", "app/api/[...path]/route.ts"];

interface Declared {
  operation: Operation;
  module: string;
  name: string;
}

/** Every operation with the module and export name it is declared under. */
export async function declaredOperations(): Promise<Declared[]> {
  const declared: Declared[] = [];
  for (const file of fs.readdirSync(OPERATIONS_DIR).sort()) {
    if (!file.endsWith(".ts") || file.endsWith(".test.ts") || file === "index.ts") continue;
    const modulePath = `@/lib/api/operations/${file.slice(0, -3)}`;
    const exports = (await import(path.join(OPERATIONS_DIR, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value === "object" && value && "handle" in value && "path" in value) {
        declared.push({ operation: value as Operation, module: modulePath, name });
      }
    }
  }
  return declared;
}

/** The route file of an API path: `/api/v1/jobs/{id}` → `app/api/v1/jobs/[id]/route.ts`. */
export const routeFileOf = (apiPath: string) =>
  `app${apiPath.replace(/\{([^}]+)\}/g, "[$1]")}/route.ts`;

/** Each route file's content, by file. */
export async function routeFiles(): Promise<Map<string, string>> {
  const byFile = new Map<string, Declared[]>();
  for (const entry of await declaredOperations()) {
    const file = routeFileOf(entry.operation.path);
    byFile.set(file, [...(byFile.get(file) ?? []), entry]);
  }
  const files = new Map<string, string>();
  for (const [file, entries] of byFile) {
    const order = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    entries.sort((a, b) => order.indexOf(a.operation.method) - order.indexOf(b.operation.method));
    const modules = new Map<string, string[]>();
    for (const entry of entries)
      modules.set(entry.module, [...(modules.get(entry.module) ?? []), entry.name]);
    const imports = [...modules]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([module, names]) => `import { ${names.sort().join(", ")} } from "${module}";`);
    const summary = entries
      .map((entry) => `${entry.operation.method} ${entry.operation.path}`)
      .join(", ");
    const text = [
      `// ${summary}: generated from lib/api/operations by \`npm run routes:generate\`.`,
      ...imports,
      `import { serve } from "@/lib/api/serve";`,
      "",
      `export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(${entries.map((entry) => entry.name).join(", ")});`,
      "",
    ].join("\n");
    const options = await resolveConfig(path.join(ROOT, file));
    files.set(file, await format(text, { ...options, filepath: file }));
  }
  return files;
}

/** Where the operations that take large bodies live, for the app server (before Next). */
export const LARGE_BODY_FILE = "lib/shared/large-body-paths.ts";

export async function largeBodyFile(): Promise<string> {
  const paths = (await declaredOperations())
    .filter((entry) => entry.operation.largeBody)
    .map((entry) => entry.operation.path)
    .sort();
  const text = [
    "// Generated from lib/api/operations by `npm run routes:generate`: the paths of the",
    "// operations that take bodies past the JSON limit (lib/shared/body-limits.ts reads it).",
    `export const LARGE_BODY_PATHS: readonly string[] = ${JSON.stringify(paths)};`,
    "",
  ].join("\n");
  const options = await resolveConfig(path.join(ROOT, LARGE_BODY_FILE));
  return format(text, { ...options, filepath: LARGE_BODY_FILE });
}

/** Route files on disk that are part of the contract (all but NOT_CONTRACT). */
export function contractRouteFiles(): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(relative);
      else if (entry.name === "route.ts" && !NOT_CONTRACT.includes(relative)) found.push(relative);
    }
  };
  visit("app/api");
  return found.sort();
}

async function main() {
  const files = await routeFiles();
  for (const stale of contractRouteFiles().filter((file) => !files.has(file))) {
    fs.rmSync(path.join(ROOT, stale));
    console.log(`removed ${stale}`);
  }
  for (const [file, content] of files) {
    fs.mkdirSync(path.dirname(path.join(ROOT, file)), { recursive: true });
    fs.writeFileSync(path.join(ROOT, file), content);
  }
  fs.writeFileSync(path.join(ROOT, LARGE_BODY_FILE), await largeBodyFile());
  console.log(`wrote ${files.size} route files and ${LARGE_BODY_FILE}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
