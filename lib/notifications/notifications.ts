import { type Address, getAddress } from "viem";
import type { Db } from "@/lib/db";
import { notFound } from "@/lib/platform/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import type {
  ListNotificationsQuery,
  MarkNotificationsReadInput,
  NotificationType,
} from "@/lib/shared/schemas/notifications";
import type { MarkedReadView, NotificationView } from "@/lib/shared/view-types";

/**
 * A wallet's notifications: newest first, the unread count, mark read. A wallet sees only its
 * own; another wallet's ids are as unknown as missing ones (404).
 */

export interface NotificationPage {
  items: NotificationView[];
  nextCursor: string | null;
  unreadCount: number;
}

export async function listNotifications(
  db: Db,
  wallet: Address,
  query: ListNotificationsQuery,
): Promise<NotificationPage> {
  const recipient = getAddress(wallet);
  const rows = await db.notification.findMany({
    where: {
      recipient,
      ...(query.unread ? { readAt: null } : {}),
      ...(query.cursor !== undefined ? { id: { lt: query.cursor } } : {}),
    },
    orderBy: { id: "desc" },
    take: query.limit + 1,
  });
  const items = rows.slice(0, query.limit);
  const titles = await jobTitles(db, items);
  return {
    items: items.map((row) => toNotificationView(row, titles.get(row.jobId) ?? "")),
    nextCursor: rows.length > query.limit ? String(items.at(-1)!.id) : null,
    unreadCount: await unreadNotificationCount(db, recipient),
  };
}

export function unreadNotificationCount(db: Db, wallet: Address): Promise<number> {
  return db.notification.count({ where: { recipient: getAddress(wallet), readAt: null } });
}

/**
 * Marks the named notifications (or all up to `upTo`) read. Idempotent: read ones stay as
 * they were. Any id that is not the caller's → 404 and nothing changes.
 */
export async function markNotificationsRead(
  db: Db,
  wallet: Address,
  input: MarkNotificationsReadInput,
): Promise<MarkedReadView> {
  const recipient = getAddress(wallet);
  const now = new Date();
  if (input.ids) {
    const ids = [...new Set(input.ids)];
    const mine = await db.notification.count({ where: { recipient, id: { in: ids } } });
    if (mine !== ids.length) throw notFound("notification_not_found", "notification not found");
  }
  const where: Prisma.NotificationWhereInput = input.ids
    ? { recipient, readAt: null, id: { in: input.ids } }
    : { recipient, readAt: null, id: { lte: input.upTo } };
  const { count } = await db.notification.updateMany({ where, data: { readAt: now } });
  return { marked: count, unreadCount: await unreadNotificationCount(db, recipient) };
}

type NotificationRow = Prisma.NotificationGetPayload<object>;

async function jobTitles(db: Db, rows: readonly NotificationRow[]) {
  const ids = [...new Set(rows.map((row) => row.jobId))];
  const jobs = await db.job.findMany({
    where: { id: { in: ids } },
    select: { id: true, title: true },
  });
  return new Map(jobs.map((job) => [job.id, job.title]));
}

function toNotificationView(row: NotificationRow, jobTitle: string): NotificationView {
  return {
    id: String(row.id),
    type: row.type as NotificationType,
    jobId: row.jobId,
    jobTitle,
    proposalId: row.proposalId,
    reviewId: row.reviewId,
    messageId: row.messageId === null ? null : String(row.messageId),
    read: row.readAt !== null,
    createdAt: row.createdAt.toISOString(),
  };
}
