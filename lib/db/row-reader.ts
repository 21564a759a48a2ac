// Read-only statements that answer text (the job views' JSON) go straight through
// node-postgres on PostgreSQL, as named prepared statements, instead of through Prisma's raw
// query path: on the uncached list that path cost about 0.3 ms of Node CPU per statement
// (2026-11-25, docs/benchmarks), about a third of the statement itself. Elsewhere (PGlite, a
// transaction's client) Prisma's $queryRaw reads them, with the same SQL.
import { hash } from "node:crypto";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client";

export type RowReader = (statement: Prisma.Sql) => Promise<unknown[]>;

const readers = new WeakMap<object, RowReader>();

/** Registers the direct reader of a client opened on PostgreSQL (lib/db/client.ts). */
export function registerRowReader(db: PrismaClient, reader: RowReader): void {
  readers.set(db, reader);
}

/**
 * The rows of a read-only statement outside any transaction. Columns come back as
 * node-postgres parses them on PostgreSQL (int8 and numeric as strings) and as Prisma does on
 * PGlite (bigint, Decimal): select text, or convert with String().
 */
export function readRows<T>(db: PrismaClient, statement: Prisma.Sql): Promise<T[]> {
  const reader = readers.get(db);
  return reader ? (reader(statement) as Promise<T[]>) : db.$queryRaw<T[]>(statement);
}

/**
 * A prepared statement's name: its text's hash, so that one text is prepared once per
 * connection and two texts never share a name (node-postgres refuses a name reused for
 * another text). The texts are the code's statement shapes (filters × sorts), a bounded set.
 */
export function statementName(text: string): string {
  return `s_${hash("sha1", text, "base64url").slice(0, 22)}`;
}
