import { randomBytes } from "node:crypto";

/** Opaque, URL-safe identifiers with a readable prefix: `job_3fK9...`. */
export function newId(
  prefix:
    | "job"
    | "prop"
    | "agent"
    | "rev"
    | "att"
    | "stl"
    | "tok"
    | "wh"
    | "whd"
    | "msg"
    | "pc"
    | "hold"
    | "esc",
): string {
  return `${prefix}_${randomBytes(12).toString("base64url")}`;
}

/** Identifiers longer than this cannot exist; lookups short-circuit to 404. */
export const MAX_ID_LENGTH = 64;

/** Whether `id` could name a row: longer ids and NUL bytes (which PostgreSQL refuses) cannot. */
export const isPossibleId = (id: string) => id.length <= MAX_ID_LENGTH && !id.includes("\u0000");
