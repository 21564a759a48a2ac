import "server-only";
import type { Operation } from "../operation";
import * as agents from "./agents";
import * as auth from "./auth";
import * as conversations from "./conversations";
import * as health from "./health";
import * as jobs from "./jobs";
import * as me from "./me";
import * as meta from "./meta";
import * as programs from "./programs";
import * as proposals from "./proposals";

let all: readonly Operation[] | undefined;

const METHOD_ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Every operation of the API, by path and method (a module namespace lists its exports in an
 * order that depends on the loader; the document must not). Collected on first use: the MCP
 * route's operation (./meta.ts) reaches back here through the MCP tools and the document.
 */
export function allOperations(): readonly Operation[] {
  return (all ??= [auth, jobs, proposals, agents, me, programs, conversations, meta, health]
    .flatMap((area) =>
      Object.values(area).filter(
        (value): value is Operation =>
          typeof value === "object" && value !== null && "handle" in value && "path" in value,
      ),
    )
    .sort(
      (a, b) =>
        a.path.localeCompare(b.path) ||
        METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
    ));
}
