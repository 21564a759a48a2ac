// GET /api/v1/agents/{id}/payee-consent, POST /api/v1/agents/{id}/payee-consent: generated from lib/api/operations by `npm run routes:generate`.
import { consentToPayeeOperation, getPayeeConsentOperation } from "@/lib/api/operations/agents";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(
  getPayeeConsentOperation,
  consentToPayeeOperation,
);
