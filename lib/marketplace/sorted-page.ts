// Keyset pages over a SQL sort key (a budget, a search rank, a rating): ties fall back to
// (createdAt, id) in the same direction, so one (key, createdAt, id) row comparison is the
// keyset condition and one index (or one sort) serves it. Prisma cannot say either, so the
// ids come from SQL and the caller loads the rows.
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { decodeSortedCursor, encodeSortedCursor } from "./pagination";

export interface SortKey {
  /** The sort's name, written into its cursors (a cursor is refused under another sort). */
  sort: string;
  /** SQL for the key, over the columns of `from`. */
  key: Prisma.Sql;
  /** SQL for a key value read back from a cursor. */
  cast: (value: string) => Prisma.Sql;
  desc: boolean;
}

interface IdRow {
  id: string;
  createdAt: Date;
  sortValue: bigint | number;
}

interface SortedPageOptions {
  /** `FROM ...` (a table or a subquery with id and createdAt columns). */
  from: Prisma.Sql;
  conditions: Prisma.Sql[];
  order: SortKey;
  cursor: string | undefined;
  limit: number;
}

/** The page's statement (its ids, one more than `limit`); for EXPLAIN too (npm run bench). */
export function sortedIdPageSql(options: SortedPageOptions): Prisma.Sql {
  const { key, cast, desc, sort } = options.order;
  const conditions = [...options.conditions];
  const after = decodeSortedCursor(options.cursor, sort);
  if (after) {
    const row = Prisma.sql`(${key}, "createdAt", "id")`;
    const bound = Prisma.sql`(${cast(after.value)}, ${after.createdAt}::timestamp(3), ${after.id})`;
    conditions.push(desc ? Prisma.sql`${row} < ${bound}` : Prisma.sql`${row} > ${bound}`);
  }
  const where = conditions.length
    ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`
    : Prisma.empty;
  const direction = desc ? Prisma.sql`DESC` : Prisma.sql`ASC`;
  return Prisma.sql`
    SELECT "id", "createdAt", ${key} AS "sortValue" FROM ${options.from} ${where}
    ORDER BY 3 ${direction}, "createdAt" ${direction}, "id" ${direction}
    LIMIT ${options.limit + 1}`;
}

export async function sortedIdPage(
  db: Db,
  options: SortedPageOptions,
): Promise<{ ids: string[]; nextCursor: string | null }> {
  const rows = await db.$queryRaw<IdRow[]>(sortedIdPageSql(options));
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    ids: page.map((row) => row.id),
    nextCursor:
      rows.length > options.limit && last
        ? encodeSortedCursor({
            createdAt: last.createdAt,
            id: last.id,
            sort: options.order.sort,
            value: String(last.sortValue),
          })
        : null,
  };
}

export const float8 = (value: string) => Prisma.sql`${Number(value)}::float8`;
export const bigint = (value: string) => Prisma.sql`${BigInt(value)}::bigint`;
