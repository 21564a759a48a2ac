// GET /api/v1/jobs/:id/attachments/:attachmentId: a delivered file, always as a download.
import { getDb } from "@/lib/db";
import { otherMethods, route } from "@/lib/api/http";
import { getAttachmentForDownload } from "@/lib/marketplace/attachments";

export const GET = route<{ id: string; attachmentId: string }>(
  { auth: true, scope: "read" },
  async ({ wallet, params }) => {
    const file = await getAttachmentForDownload(
      await getDb(),
      wallet,
      params.id,
      params.attachmentId,
    );
    return new Response(new Uint8Array(file.data), {
      headers: {
        "Content-Type": file.type,
        "Content-Length": String(file.data.byteLength),
        "Content-Disposition": `attachment; filename="${asciiFallback(file.name)}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "Cache-Control": "private, no-store",
      },
    });
  },
);
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");

function asciiFallback(name: string) {
  return name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
}
