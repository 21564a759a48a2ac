import "server-only";
import type { NextRequest } from "next/server";
import { siteOrigins } from "@/lib/platform/config";
import { DomainError } from "@/lib/platform/errors";

/**
 * A write that a cookie authenticates (or that sets one: sign-in), as a browser can forge it
 * from another site and as it cannot:
 *   - `Origin`, when sent, must be one of the site's configured origins (never derived from
 *     the request's Host);
 *   - `Sec-Fetch-Site`, when sent (every current browser does), must be `same-origin` or
 *     `none` (typed by the user): a request with no Origin from a cross-site page is refused
 *     all the same;
 *   - a body must be `application/json`: a cross-site form or `fetch(..., { mode: "no-cors" })`
 *     can only send text/plain, urlencoded or multipart bodies without a preflight.
 * Programs without these headers (curl, SDKs) pass the first two; bearer-token writes skip all.
 */
export function assertBrowserWrite(req: NextRequest) {
  const origin = req.headers.get("origin");
  if (origin && !siteOrigins().includes(origin)) {
    throw new DomainError(
      "forbidden",
      `requests from origin ${origin} are not allowed`,
      {},
      "cross_origin_request",
    );
  }
  const site = req.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new DomainError(
      "forbidden",
      `cross-site requests may not write here (Sec-Fetch-Site: ${site.slice(0, 40)})`,
      {},
      "cross_site_request",
    );
  }
  if (hasRequestBody(req) && !isJsonMediaType(req.headers.get("content-type"))) {
    throw new DomainError(
      "unsupported_media_type",
      "send the request body as JSON with Content-Type: application/json",
      { Accept: "application/json" },
      "unsupported_media_type",
    );
  }
}

function hasRequestBody(req: Request): boolean {
  const length = req.headers.get("content-length");
  return req.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0");
}

/** `application/json`, with parameters (`; charset=utf-8`) or without; nothing else. */
export function isJsonMediaType(header: string | null): boolean {
  return header?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}

/** The public URL of this request: the configured origin with the request's path. */
export function publicUrl(req: NextRequest): string {
  return `${siteOrigins()[0]}${req.nextUrl.pathname}${req.nextUrl.search}`;
}

/** Hosts a SIWE message's `domain` may name: the configured origins' hosts, nothing else. */
export function allowedSiweDomains(): string[] {
  return siteOrigins().map((origin) => new URL(origin).host);
}
