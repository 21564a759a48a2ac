// Keyset pages over a SQL sort key (a budget, a search rank, a rating): ties fall back to
// (createdAt, id) in the same direction, so one (key, createdAt, id) row comparison is the
// keyset condition and one index (or one sort) serves it. Prisma cannot say either, so the
// page's ids come from this SQL, and the caller's statement writes their views beside them
// (job-rows.ts, agent-rows.ts). Newest-first pages take their bound and WHERE from here too.
import { invalid } from "@/lib/platform/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { type CursorKey, decodeSortedCursor } from "./pagination";

export interface SortKey {
  /** The sort's name, written into its cursors (a cursor is refused under another sort). */
  sort: string;
  /** SQL for the key, over the columns of `from`. */
  key: Prisma.Sql;
  /** SQL for a key value read back from a cursor; throws `invalid` for a value out of range. */
  cast: (value: string) => Prisma.Sql;
  desc: boolean;
}

interface SortedPageOptions {
  /** `FROM ...` (a table or a subquery with id and createdAt columns). */
  from: Prisma.Sql;
  conditions: Prisma.Sql[];
  order: SortKey;
  cursor: string | undefined;
  limit: number;
}

/** `WHERE` of `conditions` joined by AND (nothing when there are none). */
export const whereSql = (conditions: Prisma.Sql[]) =>
  conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;

/**
 * A cursor's instant as SQL, written as text: node-postgres (lib/db/row-reader.ts) writes a
 * Date in the process's time zone, which a timestamp without zone drops (outside UTC, a page
 * started hours off).
 */
export const instantSql = (at: Date) => Prisma.sql`${at.toISOString()}::timestamp(3)`;

/** The rows after a newest-first cursor's key: `(createdAt, id) < key`, over `columns`. */
export function beforeKeySql(key: CursorKey, columns = Prisma.sql`"createdAt", "id"`): Prisma.Sql {
  return Prisma.sql`(${columns}) < (${instantSql(key.createdAt)}, ${key.id})`;
}

/** The keyset condition of the rows after `cursor` in `order` (none without a cursor). */
export function afterSortedCursor(order: SortKey, cursor: string | undefined): Prisma.Sql[] {
  const { key, cast, desc, sort } = order;
  const after = decodeSortedCursor(cursor, sort);
  if (!after) return [];
  const row = Prisma.sql`(${key}, "createdAt", "id")`;
  const bound = Prisma.sql`(${cast(after.value)}, ${instantSql(after.createdAt)}, ${after.id})`;
  return [desc ? Prisma.sql`${row} < ${bound}` : Prisma.sql`${row} > ${bound}`];
}

/** `ORDER BY` of a sorted page over the columns of its rows. */
export function sortedOrderSql(order: SortKey): Prisma.Sql {
  const direction = order.desc ? Prisma.sql`DESC` : Prisma.sql`ASC`;
  return Prisma.sql`${order.key} ${direction}, "createdAt" ${direction}, "id" ${direction}`;
}

/** The page's statement (its ids, one more than `limit`); for EXPLAIN too (npm run bench). */
export function sortedIdPageSql(options: SortedPageOptions): Prisma.Sql {
  const conditions = [...options.conditions, ...afterSortedCursor(options.order, options.cursor)];
  const where = whereSql(conditions);
  const direction = options.order.desc ? Prisma.sql`DESC` : Prisma.sql`ASC`;
  return Prisma.sql`
    SELECT "id", "createdAt", ${options.order.key} AS "sortValue" FROM ${options.from} ${where}
    ORDER BY 3 ${direction}, "createdAt" ${direction}, "id" ${direction}
    LIMIT ${options.limit + 1}`;
}

const INT8 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/**
 * A cursor's key value, checked against its column's type before it reaches SQL: a cursor is
 * client input, and a value the column cannot hold is the client's error (400), never the
 * database's (a 40-digit "budget" overflowed bigint and answered 500).
 */
function outOfRange(): never {
  throw invalid("invalid_cursor", "cursor is not valid; use the nextCursor of a previous page");
}

export const float8 = (value: string) => {
  const number = Number(value);
  if (!Number.isFinite(number)) outOfRange();
  return Prisma.sql`${number}::float8`;
};

export const bigint = (value: string) => {
  if (!/^-?\d{1,19}$/.test(value)) outOfRange();
  const number = BigInt(value);
  if (number < INT8.min || number > INT8.max) outOfRange();
  return Prisma.sql`${number}::bigint`;
};
