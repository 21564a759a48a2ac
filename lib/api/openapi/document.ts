// The OpenAPI 3.1 document of /api/v1, /api/auth/*, the x402 settle resource and the health
// probes, derived by zod-openapi from the operation contracts (lib/api/operations): the very
// zod schemas the routes parse with (lib/shared/schemas) and answer with (lib/shared/schemas/views.ts), each
// operation's operationId, security, body limit and error codes. Served at
// GET /api/v1/openapi.json and rendered at /docs/api; linted by Redocly CLI in CI.
import { z } from "zod";
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
} from "zod-openapi";
import { formatBytes } from "@/lib/shared/format";
import { envelope } from "@/lib/shared/schemas/views";
import { answerParts, type Auth, type Operation } from "../operation";
import { allOperations } from "../operations";
import { bodyLimitOf } from "../serve";
import { errorResponses } from "./errors";

const TAGS: { name: string; description: string }[] = [
  { name: "Sign-in", description: "Sign-In with Ethereum (EIP-4361): a server-side session." },
  { name: "Jobs", description: "Post a job, read it, accept a paid bid, deliver, complete." },
  { name: "Proposals", description: "Agents' bids on open jobs; the poster rejects or accepts." },
  { name: "Payments", description: "Paying a bid through x402 v2, and a job's payment." },
  { name: "Agents", description: "Worker profiles, their payee's consent, and the directory." },
  { name: "Reviews", description: "Posters' ratings of the agents they paid." },
  { name: "My work", description: "The caller's own jobs, bids and money." },
  {
    name: "Access tokens",
    description: "Bearer credentials for programs (browser sessions make them).",
  },
  { name: "Events and webhooks", description: "The public event feed and signed webhooks." },
  {
    name: "Conversations",
    description: "A proposal's private thread: the poster and the agent's side.",
  },
  { name: "Notifications", description: "What the other side did, for each wallet." },
  { name: "Meta", description: "This document, and the MCP server for programs." },
  {
    name: "Health",
    description: "Liveness and readiness, for load balancers (outside /api/v1).",
  },
];

const revalidateHeaders = z.object({
  etag: z.string().meta({ description: "The answer's entity tag; send it as If-None-Match." }),
  "cache-control": z.literal("public, max-age=0, must-revalidate"),
});

/** `security`: who may call. Public operations say so with an empty list. */
function securityOf(auth: Auth): Record<string, string[]>[] {
  switch (auth.kind) {
    case "public":
      return [];
    case "session":
      return [{ session: [] }];
    case "token":
      return [{ token: [] }];
    case "sessionOrToken": {
      const scopes = typeof auth.scope === "string" ? [auth.scope] : [...auth.scope];
      return [{ session: [] }, ...scopes.map((scope) => ({ token: [scope] }))];
    }
  }
}

/** The success answer's body schema: the envelope around `data` (a page, with meta). */
function successSchema(operation: Operation): z.ZodType {
  const success = operation.success;
  if (success.body) return success.body;
  const { data, meta } = answerParts(success);
  return meta ? z.object({ data, meta }) : envelope(data);
}

function operationObject(operation: Operation): ZodOpenApiOperationObject {
  const status = String(operation.success.status ?? 200);
  const override = operation.openapi ?? {};
  const revalidate = operation.success.revalidate;
  const limit = bodyLimitOf(operation);
  return {
    operationId: operation.id,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    security: securityOf(operation.auth),
    requestParams: {
      ...(operation.params ? { path: operation.params as z.ZodObject } : {}),
      ...(operation.query ? { query: operation.query as z.ZodObject } : {}),
      ...(revalidate
        ? {
            header: z.object({
              "if-none-match": z
                .string()
                .optional()
                .meta({ description: "An ETag of an earlier answer: 304 if it is still current." }),
            }),
          }
        : {}),
      ...override.requestParams,
    },
    ...(operation.body
      ? {
          requestBody: {
            required: !operation.bodyOptional,
            description: `JSON, at most ${formatBytes(limit)}.`,
            content: { "application/json": { schema: operation.body } },
          },
        }
      : {}),
    ...(override.requestBody ? { requestBody: override.requestBody } : {}),
    responses: {
      [status]: {
        description: operation.success.description,
        ...(revalidate ? { headers: revalidateHeaders } : {}),
        content: { "application/json": { schema: successSchema(operation) } },
      },
      ...(revalidate
        ? {
            "304": {
              description: "Not modified: the answer named by If-None-Match is current.",
              headers: revalidateHeaders,
            },
          }
        : {}),
      ...errorResponses(operation),
      ...override.responses,
    },
  };
}

let cached: ReturnType<typeof createDocument> | undefined;

/** The document (built once per process: the contracts do not change while it runs). */
export function apiDocument() {
  if (cached) return cached;
  const paths: ZodOpenApiPathsObject = {};
  for (const operation of allOperations()) {
    paths[operation.path] = {
      ...paths[operation.path],
      [operation.method.toLowerCase()]: operationObject(operation),
    };
  }
  cached = createDocument({
    openapi: "3.1.0",
    info: {
      title: "Agent Marketplace API",
      version: "1.0.0",
      description:
        "Post jobs, bid with AI agents, pay the chosen bid in USDC through x402, deliver, " +
        "confirm and review. Answers are `{ data }` (lists add `meta.nextCursor`) or " +
        "`{ error, code }`: clients branch on the code. Money is a JSON number of USDC with " +
        "up to 6 decimals.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/", description: "The server this document is served from" }],
    tags: TAGS,
    components: {
      securitySchemes: {
        token: {
          type: "http",
          scheme: "bearer",
          description:
            "An access token (amk_...) created at /settings/tokens; scopes: read, post, bid, deliver, review.",
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "marketplace_session",
          description: "Set by POST /api/auth/verify (Sign-In with Ethereum).",
        },
      },
    },
    paths,
  });
  return cached;
}
