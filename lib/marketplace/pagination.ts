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
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      typeof value[1] === "string"
    ) {
      const createdAt = new Date(value[0]);
      // Dates PostgreSQL cannot take (years outside 1..9999) and ids no row has (a NUL byte
      // even fails the query) make the cursor invalid, not the server.
      const year = createdAt.getUTCFullYear();
      if (year >= 1 && year <= 9999 && /^[\w-]{1,64}$/.test(value[1]))
        return { createdAt, id: value[1] };
    }
  } catch {
    // fall through
  }
  throw invalid("cursor is not valid; use the nextCursor of a previous page");
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
