import path from "node:path";

/** Where the data lives: a PostgreSQL server, or embedded PGlite files in a folder. */
export type DbTarget =
  | { kind: "postgres"; connectionString: string; schema: string | undefined }
  | { kind: "pglite"; dataDir: string | undefined };

export const DEFAULT_PGLITE_DIR = path.join(".data", "pglite");

/**
 * `DATABASE_URL=postgres://...` selects PostgreSQL. Prisma's `?schema=` convention is
 * honoured: the schema becomes the connection's search_path (so raw SQL sees it too) and
 * Prisma's own schema option. Without a URL the embedded database lives in
 * `PGLITE_DATA_DIR` (default `.data/pglite`); `memory://` keeps it in memory.
 */
export function resolveDbTarget(env: {
  DATABASE_URL?: string | undefined;
  PGLITE_DATA_DIR?: string | undefined;
}): DbTarget {
  if (env.DATABASE_URL) {
    const url = new URL(env.DATABASE_URL);
    const schema = url.searchParams.get("schema") ?? undefined;
    url.searchParams.delete("schema");
    if (schema) {
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
        throw new Error(`DATABASE_URL schema "${schema}" is not a plain identifier`);
      }
      url.searchParams.set("options", `-c search_path=${schema}`);
    }
    return { kind: "postgres", connectionString: url.toString(), schema };
  }
  const dir = env.PGLITE_DATA_DIR ?? DEFAULT_PGLITE_DIR;
  return {
    kind: "pglite",
    dataDir: dir === "memory://" ? undefined : path.resolve(/* turbopackIgnore: true */ dir),
  };
}

export function describeTarget(target: DbTarget): string {
  if (target.kind === "pglite") return `embedded PGlite (${target.dataDir ?? "in memory"})`;
  const url = new URL(target.connectionString);
  return `PostgreSQL ${url.host}${url.pathname}${target.schema ? ` schema ${target.schema}` : ""}`;
}
