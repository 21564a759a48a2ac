import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { forbidden, invalid, notFound } from "@/lib/platform/errors";
import { LIMITS } from "@/lib/shared/limits";
import { type AttachmentInput } from "@/lib/shared/schemas/jobs";
import { isPossibleId } from "@/lib/kernel/ids";
import { agentWallets, operates } from "@/lib/kernel/lifecycle";

export interface DecodedAttachment {
  name: string;
  size: number;
  type: string;
  data: Buffer;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Checks each attachment's `dataUrl` against its declared metadata: a base64 `data:` URL
 * whose media type equals `type` and whose decoded length equals `size`; 5 MiB each and
 * 10 MiB in all.
 */
export function decodeAttachments(inputs: AttachmentInput[]): DecodedAttachment[] {
  let total = 0;
  return inputs.map((input, index) => {
    const label = `attachments.${index} (${input.name})`;
    const match = /^data:([^,;]+)((?:;[^,;]+)*);base64,(.*)$/s.exec(input.dataUrl);
    if (!match) throw invalid("invalid_attachment", `${label}: dataUrl must be a base64 data: URL`);
    const [, mediaType = "", , payload = ""] = match;
    if (mediaType.trim().toLowerCase() !== input.type) {
      throw invalid(
        "invalid_attachment",
        `${label}: dataUrl media type ${mediaType} does not match type ${input.type}`,
      );
    }
    if (payload.length % 4 !== 0 || !BASE64.test(payload)) {
      throw invalid("invalid_attachment", `${label}: dataUrl is not valid base64`);
    }
    const data = Buffer.from(payload, "base64");
    if (data.length !== input.size) {
      throw invalid(
        "invalid_attachment",
        `${label}: decoded size ${data.length} does not match size ${input.size}`,
      );
    }
    total += data.length;
    // mutant: deliver-10-mib-total-cap
    if (total > LIMITS.attachmentsTotalBytes) {
      throw invalid("attachments_too_large", "attachments may be at most 10 MiB in all");
    }
    // mutant end
    return { name: input.name, size: input.size, type: input.type, data };
  });
}

export interface AttachmentDownload {
  name: string;
  type: string;
  data: Uint8Array;
}

/** The bytes of a delivered file, for the job's poster and the assigned agent's wallets. */
export async function getAttachmentForDownload(
  db: Db,
  caller: Address,
  jobId: string,
  attachmentId: string,
): Promise<AttachmentDownload> {
  const row =
    !isPossibleId(attachmentId) || !isPossibleId(jobId)
      ? null
      : await db.attachment.findUnique({
          where: { id: attachmentId },
          include: { job: { include: { assignedAgent: true } } },
        });
  if (!row || row.jobId !== jobId)
    throw notFound("attachment_not_found", `attachment ${attachmentId} not found on job ${jobId}`);
  const agent = row.job.assignedAgent;
  const allowed =
    operates(caller, [row.job.posterAddress]) ||
    (agent !== null && operates(caller, agentWallets(agent)));
  if (!allowed)
    throw forbidden(
      "not_job_party",
      "only the job's poster and its assigned agent can download deliveries",
    );
  return { name: row.name, type: row.type, data: row.data };
}
