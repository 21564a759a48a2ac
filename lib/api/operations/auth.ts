import "server-only";
import { z } from "zod";
import { endSession, startSession } from "@/lib/auth/session-cookie";
import { issueNonce, verifySiwe } from "@/lib/auth/siwe";
import { unauthenticated } from "@/lib/platform/errors";
import { siweVerifySchema } from "@/lib/shared/schemas/auth";
import { nonceViewSchema, okViewSchema, sessionViewSchema } from "@/lib/shared/schemas/views";
import { allowedSiweDomains } from "../browser-writes";
import { answer, defineOperation, PUBLIC, SESSION_ONLY } from "../operation";

// Sign-In with Ethereum: a nonce, the signed message, the session, signing out.

export const getNonceOperation = defineOperation({
  id: "getNonce",
  method: "GET",
  path: "/api/auth/nonce",
  tag: "Sign-in",
  summary: "A single-use SIWE nonce, valid 10 minutes",
  auth: PUBLIC,
  rate: "auth",
  success: { description: "The nonce", data: nonceViewSchema },
  handle: async ({ db }) => answer({ nonce: await issueNonce(db) }),
});

export const signInOperation = defineOperation({
  id: "signIn",
  method: "POST",
  path: "/api/auth/verify",
  tag: "Sign-in",
  summary: "Sign in: a SIWE message for this site's domain and its signature",
  description:
    "Starts a server-side session; the `marketplace_session` cookie carries its sealed id.",
  auth: PUBLIC,
  rate: "auth",
  body: siweVerifySchema,
  success: { description: "Signed in", data: sessionViewSchema },
  errors: ["invalid_siwe_message", "siwe_refused"],
  openapi: {
    responses: {
      "200": {
        description: "Signed in",
        headers: z.object({
          "set-cookie": z.string().meta({ description: "marketplace_session=...; HttpOnly" }),
        }),
        content: { "application/json": { schema: z.object({ data: sessionViewSchema }) } },
      },
    },
  },
  handle: async ({ db, body }) => {
    const address = await verifySiwe(db, { ...body, allowedDomains: allowedSiweDomains() });
    await startSession(address);
    return answer({ address });
  },
});

export const getSessionOperation = defineOperation({
  id: "getSession",
  method: "GET",
  path: "/api/auth/session",
  tag: "Sign-in",
  summary: "The signed-in wallet",
  auth: SESSION_ONLY,
  success: { description: "Signed in", data: sessionViewSchema },
  handle: async ({ wallet }) => answer({ address: wallet }),
});

export const signOutOperation = defineOperation({
  id: "signOut",
  method: "POST",
  path: "/api/auth/logout",
  tag: "Sign-in",
  summary: "Sign out: revoke this session, or every session of the wallet with all=true",
  auth: PUBLIC,
  rate: "none",
  query: z.object({ all: z.enum(["true", "false"]).optional() }),
  success: { description: "Signed out; the cookie is cleared", data: okViewSchema },
  errors: ["unauthenticated"],
  handle: async ({ query }) => {
    if (!(await endSession({ all: query.all === "true" }))) {
      throw unauthenticated("no valid session: sign in first to sign out everywhere");
    }
    return answer({ ok: true });
  },
});
