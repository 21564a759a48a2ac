// GET /api/auth/session: the signed-in wallet, or 401.
import { ok, otherMethods, route } from "@/lib/api/http";

export const GET = route({ auth: true }, async ({ wallet }) => ok({ address: wallet }));
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
