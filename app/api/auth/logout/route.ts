// POST /api/auth/logout[?all=true]: revokes this session (or every session of its wallet)
// on the server and clears the cookie.
import { z } from "zod";
import { endSession } from "@/lib/auth/session-cookie";
import { unauthenticated } from "@/lib/platform/errors";
import { ok, otherMethods, route } from "@/lib/api/http";

const logoutQuery = z.object({ all: z.enum(["true", "false"]).optional() });

export const POST = route({}, async ({ query }) => {
  const all = query(logoutQuery).all === "true";
  if (!(await endSession({ all }))) {
    throw unauthenticated("no valid session: sign in first to sign out everywhere");
  }
  return ok({ ok: true });
});
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
