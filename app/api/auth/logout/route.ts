// POST /api/auth/logout: generated from lib/api/operations by `npm run routes:generate`.
import { signOutOperation } from "@/lib/api/operations/auth";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(signOutOperation);
