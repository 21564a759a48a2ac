import type { Prisma } from "@/lib/generated/prisma/client";
import type { NotificationType } from "@/lib/shared/schemas/notifications";
import { recipientsOf, type Sides } from "./notice-recipients";

/** Something that happened, to be told to the wallets the table names. */
export interface Notice {
  type: NotificationType;
  jobId: string;
  sides: Sides;
  /** The wallet that acted, when the write knows it (a message's sender): never notified. */
  actor?: string;
  proposalId?: string;
  reviewId?: string;
  messageId?: bigint;
  /** The feed event it comes from (none for messages: they are not in the public feed). */
  eventId?: bigint;
}

/**
 * Writes one notification per recipient of each notice, in the caller's transaction: the
 * transaction of the change itself, so a notification exists exactly when its change
 * committed (lib/events/record.ts for the feed's events, lib/conversations for messages).
 */
export async function writeNotifications(
  tx: Prisma.TransactionClient,
  notices: readonly Notice[],
): Promise<void> {
  const rows: Prisma.NotificationCreateManyInput[] = notices.flatMap((notice) =>
    recipientsOf(notice.type, notice.sides, notice.actor).map((recipient) => ({
      recipient,
      type: notice.type,
      jobId: notice.jobId,
      proposalId: notice.proposalId ?? null,
      reviewId: notice.reviewId ?? null,
      messageId: notice.messageId ?? null,
      eventId: notice.eventId ?? null,
    })),
  );
  if (rows.length > 0) await tx.notification.createMany({ data: rows });
}
