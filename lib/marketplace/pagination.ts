import { invalid } from "@/lib/errors";

/**
 * Keyset pagination over (createdAt, id): stable under inserts, index-friendly. The cursor
 * is opaque to clients (base64url JSON of the last row's key).
 */
export interface CursorKey {
  createdAt: Date;
  id: string;
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify([key.createdAt.toISOString(), key.id])).toString("base64url");
}

export function decodeCursor(cursor: string | undefined): CursorKey | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  const parts = cursorParts(cursor);
  const key = parts?.length === 2 ? cursorKey(parts[0]!, parts[1]!) : undefined;
  if (key) return key;
  throw invalid("cursor is not valid; use the nextCursor of a previous page");
}

/** The cursor's JSON array of strings, or undefined when it is not one. */
function cursorParts(cursor: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(value) && value.every((part) => typeof part === "string")) return value;
  } catch {
    // not base64url JSON
  }
  return undefined;
}

function cursorKey(createdAtIso: string, id: string): CursorKey | undefined {
  const createdAt = new Date(createdAtIso);
  // Dates PostgreSQL cannot take (years outside 1..9999) and ids no row has (a NUL byte even
  // fails the query) make the cursor invalid, not the server.
  const year = createdAt.getUTCFullYear();
  return year >= 1 && year <= 9999 && /^[\w-]{1,64}$/.test(id) ? { createdAt, id } : undefined;
}

/**
 * A cursor for a list sorted by another key first (a budget, a search rank): the last row's
 * key value beside its (createdAt, id). It names its sort, so it is refused under another.
 */
export interface SortedCursorKey extends CursorKey {
  sort: string;
  value: string;
}

export function encodeSortedCursor(key: SortedCursorKey): string {
  const parts = [key.createdAt.toISOString(), key.id, key.sort, key.value];
  return Buffer.from(JSON.stringify(parts)).toString("base64url");
}

const SORT_VALUE = /^-?\d{1,40}(\.\d{1,40})?(e[+-]?\d{1,3})?$/;

export function decodeSortedCursor(
  cursor: string | undefined,
  sort: string,
): SortedCursorKey | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  const parts = cursorParts(cursor);
  if (parts?.length === 4 && parts[2] === sort && SORT_VALUE.test(parts[3]!)) {
    const key = cursorKey(parts[0]!, parts[1]!);
    if (key) return { ...key, sort, value: parts[3]! };
  }
  throw invalid(`cursor is not valid for sort=${sort}; use the nextCursor of a previous page`);
}

/** Prisma `where` for rows after the cursor in the given direction. */
export function afterCursor(key: CursorKey | undefined, direction: "desc" | "asc") {
  if (!key) return {};
  const op = direction === "desc" ? "lt" : "gt";
  return {
    OR: [
      { createdAt: { [op]: key.createdAt } },
      { createdAt: key.createdAt, id: { [op]: key.id } },
    ],
  };
}

export const orderBy = (direction: "desc" | "asc") => [{ createdAt: direction }, { id: direction }];

/** Splits `limit + 1` fetched rows into the page and the next cursor. */
export function toPage<T extends CursorKey>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
  };
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
