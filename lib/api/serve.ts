import "server-only";
import type { NextRequest } from "next/server";
import { getDb } from "@/lib/db";
import { DELIVER_BODY_LIMIT, JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import { errorResponse, ok, okJson } from "./envelope";
import type { Auth, Method, Operation, RequestOrigin } from "./operation";
import { rateClassOf } from "./operation";
import { addressSubject, requestClientAddress } from "@/lib/platform/client-address";
import { route, type RouteOptions } from "./route";

/**
 * A route file's handlers, derived from the operations at its path:
 *   export const { GET, POST, PUT, PATCH, DELETE } = serve(listJobs, createJob);
 * Each runs the request pipeline (lib/api/route.ts) with what its operation declares, parses
 * its params, query and body with the operation's schemas and answers its envelope; the
 * methods no operation declares answer 405 with the Allow list.
 */
export function serve(...operations: Operation[]) {
  const allowed = operations.map((operation) => operation.method).join(", ");
  const notAllowed = async () =>
    errorResponse(
      405,
      `method not allowed; this path accepts ${allowed}`,
      { Allow: allowed },
      "method_not_allowed",
    );
  const handlers = {} as Record<Method, (req: NextRequest, next: NextParams) => Promise<Response>>;
  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"] as const) {
    const operation = operations.find((candidate) => candidate.method === method);
    handlers[method] = operation ? handlerOf(operation) : notAllowed;
  }
  // What this path answers (Next's own OPTIONS would list every method, most of them 405).
  const options = [allowed, ...(allowed.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
  const OPTIONS = async () => new Response(null, { status: 204, headers: { Allow: options } });
  return { ...handlers, OPTIONS };
}

type NextParams = { params: Promise<Record<string, string>> };

/** The request's client and signal, the client worked out only when an operation asks. */
export function originOf(req: Request): RequestOrigin {
  return {
    get client() {
      return addressSubject(requestClientAddress(req));
    },
    signal: req.signal,
  };
}

/** The body limit an operation's requests are held to (also before Next reads them). */
export const bodyLimitOf = (operation: Pick<Operation, "largeBody">) =>
  operation.largeBody ? DELIVER_BODY_LIMIT : JSON_BODY_LIMIT;

function routeOptions(auth: Auth): Pick<RouteOptions, "auth" | "scope"> {
  switch (auth.kind) {
    case "public":
      return {};
    case "session":
      return { auth: true };
    case "token":
      return { auth: "token" };
    case "sessionOrToken":
      return { auth: true, scope: auth.scope };
  }
}

function handlerOf(operation: Operation) {
  return route<Record<string, string>>(
    {
      ...routeOptions(operation.auth),
      rateLimit: rateClassOf(operation) ?? "none",
      bodyLimit: bodyLimitOf(operation),
    },
    async ({ req, params, caller, wallet, query, body }) => {
      const ctx = {
        db: operation.database === false ? (undefined as never) : await getDb(),
        caller,
        wallet,
        req,
        from: originOf(req),
        params: operation.params ? operation.params.parse(params) : undefined,
        query: operation.query ? query(operation.query) : undefined,
        body: undefined as unknown,
      };
      if (operation.beforeBody) await operation.beforeBody(ctx as never);
      if (operation.body) ctx.body = await body(operation.body);
      const result = await operation.handle(ctx as never);
      if (result instanceof Response) return result;
      const init = {
        status: operation.success.status ?? 200,
        meta: result.meta,
        headers: result.headers,
        revalidate: operation.success.revalidate ? req : undefined,
      };
      return result.json ? okJson(result.json, init) : ok(result.data, init);
    },
  );
}
