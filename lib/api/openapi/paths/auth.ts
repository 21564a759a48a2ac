// Sign-in (SIWE sessions) and the document itself.
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { siweVerifySchema } from "@/lib/shared/schemas/auth";
import {
  envelope,
  nonceViewSchema,
  okViewSchema,
  sessionViewSchema,
} from "@/lib/shared/schemas/views";
import { ALWAYS, errorResponses } from "../errors";

import { body, json, SESSION } from "../shared";

export const authPaths: ZodOpenApiPathsObject = {
  "/api/v1/openapi.json": {
    get: {
      tags: ["Meta"],
      summary: "This document (OpenAPI 3.1)",
      responses: {
        "200": json(z.looseObject({ openapi: z.string() }), "The OpenAPI document"),
        ...errorResponses([500]),
      },
    },
  },
  "/api/auth/nonce": {
    get: {
      tags: ["Sign-in"],
      summary: "A single-use SIWE nonce, valid 10 minutes",
      responses: { "200": json(envelope(nonceViewSchema), "The nonce"), ...errorResponses(ALWAYS) },
    },
  },
  "/api/auth/verify": {
    post: {
      tags: ["Sign-in"],
      summary: "Sign in: a SIWE message for this site's domain and its signature",
      description:
        "Starts a server-side session; the `marketplace_session` cookie carries its sealed id.",
      requestBody: body(siweVerifySchema),
      responses: {
        "200": {
          ...json(envelope(sessionViewSchema), "Signed in"),
          headers: z.object({
            "set-cookie": z.string().meta({ description: "marketplace_session=...; HttpOnly" }),
          }),
        },
        ...errorResponses([400, 401, 403, 408, 413, 415, ...ALWAYS], {
          401: {
            examples: [
              {
                summary: "foreign domain",
                value: {
                  error: "sign-in refused: the message was signed for another site",
                  code: "unauthenticated",
                },
              },
            ],
          },
        }),
      },
    },
  },
  "/api/auth/session": {
    get: {
      tags: ["Sign-in"],
      summary: "The signed-in wallet",
      security: SESSION,
      responses: {
        "200": json(envelope(sessionViewSchema), "Signed in"),
        ...errorResponses([401, 403, 500, 503]),
      },
    },
  },
  "/api/auth/logout": {
    post: {
      tags: ["Sign-in"],
      summary: "Sign out: revoke this session, or every session of the wallet with all=true",
      security: SESSION,
      requestParams: { query: z.object({ all: z.enum(["true", "false"]).optional() }) },
      responses: {
        "200": json(envelope(okViewSchema), "Signed out; the cookie is cleared"),
        ...errorResponses([400, 401, 403, 500, 503]),
      },
    },
  },
};
