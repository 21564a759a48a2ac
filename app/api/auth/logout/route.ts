// POST /api/auth/logout: clears the session cookie.
import { endSession } from "@/lib/auth/session";
import { ok, otherMethods, route } from "@/lib/http";

export const POST = route({}, async () => {
  await endSession();
  return ok({ ok: true });
});
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
