import { invalid } from "@/lib/platform/errors";
import { LIMITS } from "@/lib/shared/limits";

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
  throw invalid("invalid_cursor", "cursor is not valid; use the nextCursor of a previous page");
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
  throw invalid(
    "invalid_cursor",
    `cursor is not valid for sort=${sort}; use the nextCursor of a previous page`,
  );
}

/**
 * Prisma `where`: the list's own filter, and rows after the cursor in the given direction.
 * Joined with AND, never spread beside the filter: a filter's own OR ("posted by me, or
 * assigned to an agent I operate") would be replaced by the cursor's, and page 2 would list
 * every job.
 */
export function afterCursor<Where extends object>(
  where: Where,
  key: CursorKey | undefined,
  direction: "desc" | "asc",
) {
  if (!key) return where;
  const op = direction === "desc" ? "lt" : "gt";
  return { AND: [where, keyAfter(key, op)] };
}

function keyAfter(key: CursorKey, op: "lt" | "gt") {
  return {
    OR: [
      { createdAt: { [op]: key.createdAt } },
      // mutant: lists-the-cursor-breaks-createdat-ties-by-id
      { createdAt: key.createdAt, id: { [op]: key.id } },
      // mutant end
    ],
  };
}

export const orderBy = (direction: "desc" | "asc") => [{ createdAt: direction }, { id: direction }];

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Splits `limit + 1` fetched rows into the page and the next cursor, the rows turned into
 * what the list answers by `toView` and held within LIMITS.pageBytes (fitPage).
 */
export function toPage<T extends CursorKey>(rows: T[], limit: number): Page<T>;
export function toPage<T extends CursorKey, V>(
  rows: T[],
  limit: number,
  toView: (row: T) => V,
): Page<V>;
export function toPage<T extends CursorKey, V>(
  rows: T[],
  limit: number,
  toView?: (row: T) => V,
): Page<T | V> {
  const kept = rows.slice(0, limit);
  const views: (T | V)[] = toView ? kept.map(toView) : kept;
  return fitPage(views, rows.length > limit, (index) => encodeCursor(kept[index]!));
}

/**
 * A page of `views` (in list order) whose JSON stays within `maxBytes` (LIMITS.pageBytes): a
 * `limit` bounds the count, and this the bytes, so that a page of 100 jobs each carrying
 * 45,000 characters of description and requirements is several pages, not one of 20 MB. A
 * page always holds at least one item (each is bounded by its fields' own limits); when it
 * holds fewer than were read, `nextCursor` continues right after the last one it holds.
 *
 * @param more whether the list goes on after the last of `views`
 * @param cursorAfter the cursor that continues after `views[index]`
 * @param bytesOf a view's JSON size in bytes, or a bound of it
 */
export function fitPage<V>(
  views: V[],
  more: boolean,
  cursorAfter: (index: number) => string,
  maxBytes: number = LIMITS.pageBytes,
  bytesOf: (view: V) => number = jsonBytesAtMost,
): Page<V> {
  let bytes = 2;
  let count = 0;
  for (const view of views) {
    bytes += bytesOf(view) + 1;
    if (count > 0 && bytes > maxBytes) break;
    count += 1;
  }
  const cut = count < views.length;
  return {
    items: cut ? views.slice(0, count) : views,
    nextCursor: (cut || more) && count > 0 ? cursorAfter(count - 1) : null,
  };
}

/** A page whose items PostgreSQL wrote as JSON text: `json` is their array. */
export interface JsonPage {
  json: string;
  nextCursor: string | null;
}

/**
 * fitPage for items given as JSON text: their exact UTF-8 sizes, and the kept ones joined
 * into one array's text (`finish`: a last pass over that text, once per page).
 */
export function fitJsonPage(
  items: string[],
  more: boolean,
  cursorAfter: (index: number) => string,
  finish: (json: string) => string = (json) => json,
): JsonPage {
  const page = fitPage(items, more, cursorAfter, LIMITS.pageBytes, (item) =>
    Buffer.byteLength(item, "utf8"),
  );
  return { json: finish(`[${page.items.join(",")}]`), nextCursor: page.nextCursor };
}

/** A row of a page PostgreSQL wrote: its item's JSON beside the item's page key. */
export interface KeyedJsonRow {
  json: string;
  id: string;
  /** createdAt as toISOString writes it. */
  createdAt: string;
  /** The sort key's value, on sorted pages: use it through String(). */
  sortValue?: bigint | number | string;
}

/**
 * The page of `rows` (read one past `limit`), fitted as fitJsonPage fits one, its cursors
 * newest first by (createdAt, id), or, with `sort`, of that sort (its key the row's sortValue).
 */
export function keyedJsonPage(
  rows: KeyedJsonRow[],
  limit: number,
  finish: (json: string) => string,
  sort?: string,
): JsonPage {
  const kept = rows.slice(0, limit);
  const cursorAfter = (index: number) => {
    const row = kept[index]!;
    const key = { createdAt: new Date(row.createdAt), id: row.id };
    return sort === undefined
      ? encodeCursor(key)
      : encodeSortedCursor({ ...key, sort, value: String(row.sortValue) });
  };
  return fitJsonPage(
    kept.map((row) => row.json),
    rows.length > limit,
    cursorAfter,
    finish,
  );
}

const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * An upper bound of `JSON.stringify(value)`'s length in UTF-8 bytes, without building it:
 * strings by their UTF-8 length plus their escapes (at most 6 bytes for a control character
 * or a lone surrogate, which UTF-8 counts as 3), every number and date at its longest. Cheap
 * enough for every item of every page.
 */
export function jsonBytesAtMost(value: unknown): number {
  switch (typeof value) {
    case "string": {
      let bytes = Buffer.byteLength(value, "utf8") + 2;
      if (ESCAPED.test(value)) {
        for (let i = 0; i < value.length; i++) {
          const code = value.charCodeAt(i);
          if (code < 0x20) bytes += 5;
          else if (code === 0x22 || code === 0x5c) bytes += 1;
          else if (code >= 0xd800 && code <= 0xdfff) {
            const next = value.charCodeAt(i + 1);
            if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i += 1;
            else bytes += 3;
          }
        }
      }
      return bytes;
    }
    case "number":
    case "bigint":
      return 26;
    case "boolean":
      return 5;
    case "object": {
      if (value === null) return 4;
      if (value instanceof Date) return 26;
      let bytes = 2;
      if (Array.isArray(value)) {
        for (const item of value) bytes += jsonBytesAtMost(item) + 1;
        return bytes;
      }
      for (const [key, item] of Object.entries(value)) {
        if (item !== undefined) bytes += jsonBytesAtMost(key) + jsonBytesAtMost(item) + 2;
      }
      return bytes;
    }
    default:
      return 4;
  }
}
