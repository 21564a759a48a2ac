import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { acquirePgliteDirLock } from "./pglite-lock";
import type { DbTarget } from "./target";

export type Db = PrismaClient;

export interface OpenDatabase {
  db: PrismaClient;
  /** Present for PGlite: the embedded engine, for raw SQL and migrations. */
  pglite?: PGlite;
  close(): Promise<void>;
}

/** Opens a Prisma client on the target. Each call is a new client: callers own it. */
export async function openDatabase(target: DbTarget): Promise<OpenDatabase> {
  if (target.kind === "postgres") {
    const adapter = new PrismaPg(
      { connectionString: target.connectionString, max: 10 },
      target.schema ? { schema: target.schema } : undefined,
    );
    const db = new PrismaClient({ adapter });
    return { db, close: () => db.$disconnect() };
  }
  const release = target.dataDir ? acquirePgliteDirLock(target.dataDir) : () => {};
  try {
    const pglite = await PGlite.create(target.dataDir);
    const db = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    return {
      db,
      pglite,
      async close() {
        await db.$disconnect();
        await pglite.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
