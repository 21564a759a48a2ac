// GET /api/v1/jobs/{id}/attachments/{attachmentId}: generated from lib/api/operations by `npm run routes:generate`.
import { downloadAttachmentOperation } from "@/lib/api/operations/jobs";
import { serve } from "@/lib/api/serve";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = serve(downloadAttachmentOperation);
