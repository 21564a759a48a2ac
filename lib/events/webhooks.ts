import { randomBytes } from "node:crypto";
import type { Address } from "viem";
import type { Db } from "@/lib/db";
import { ensureWallet } from "@/lib/db/wallets";
import { WRITE_TRANSACTION } from "@/lib/db/transaction-budget";
import { conflict, invalid, notFound } from "@/lib/platform/errors";
import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookSubscription,
} from "@/lib/generated/prisma/client";
import { isPossibleId, newId } from "@/lib/kernel/ids";
import { afterCursor, decodeCursor, orderBy, type Page, toPage } from "@/lib/kernel/pagination";
import type { EventType } from "@/lib/shared/schemas/events";
import {
  type CreateWebhookInput,
  type ListDeliveriesQuery,
  MAX_WEBHOOKS_PER_WALLET,
} from "@/lib/shared/schemas/webhooks";
import type { WebhookDeliveryView, WebhookView } from "@/lib/shared/view-types";
import { feedHead } from "./feed";
import { checkWebhookUrl, OutboundRefusal, webhookPolicy } from "./outbound";
import { attemptClaimed, leaseSeconds, TEST_EVENT_TYPE } from "./webhook-worker";

/**
 * A wallet's webhook subscriptions: create (the URL checked by the SSRF rules, the signing
 * secret shown once), list, delete, the delivery log and a test message. Each wallet sees and
 * changes only its own; another wallet's subscription is as unknown as a missing one (404).
 */

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export async function createWebhook(
  db: Db,
  owner: Address,
  input: CreateWebhookInput,
): Promise<WebhookView & { secret: string }> {
  try {
    await checkWebhookUrl(input.url, webhookPolicy());
  } catch (error) {
    if (error instanceof OutboundRefusal) throw invalid("invalid_webhook_url", error.message);
    throw error;
  }
  const secret = newWebhookSecret();
  // Events from now on: every id up to the head is already committed (read before the
  // transaction: the embedded database has one connection).
  const startAfterEventId = await feedHead(db);
  const row = await db.$transaction(async (tx) => {
    await ensureWallet(tx, owner);
    // Serialises this wallet's creations, so that the limit holds under concurrent requests.
    // NO KEY UPDATE: a job's creation checks its poster's key (FOR KEY SHARE) while it holds
    // the events lock (lib/events/record.ts); FOR UPDATE would make it wait for this
    // transaction, and every event writer behind it.
    await tx.$queryRaw`SELECT "address" FROM "wallets" WHERE "address" = ${owner} FOR NO KEY UPDATE`;
    const count = await tx.webhookSubscription.count({ where: { ownerAddress: owner } });
    if (count >= MAX_WEBHOOKS_PER_WALLET) {
      throw conflict(
        "webhook_limit_reached",
        `a wallet may have at most ${MAX_WEBHOOKS_PER_WALLET} webhooks`,
      );
    }
    return tx.webhookSubscription.create({
      data: {
        id: newId("wh"),
        ownerAddress: owner,
        url: input.url,
        types: input.types,
        categories: input.categories,
        secret,
        startAfterEventId,
      },
    });
  }, WRITE_TRANSACTION);
  return { ...toWebhookView(row), secret };
}

export async function listWebhooks(db: Db, owner: Address): Promise<WebhookView[]> {
  const rows = await db.webhookSubscription.findMany({
    where: { ownerAddress: owner },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return rows.map(toWebhookView);
}

export async function getWebhook(db: Db, owner: Address, id: string): Promise<WebhookView> {
  return toWebhookView(await getOwnedOrThrow(db, owner, id));
}

export async function deleteWebhook(db: Db, owner: Address, id: string): Promise<WebhookView> {
  const row = await getOwnedOrThrow(db, owner, id);
  const { count } = await db.webhookSubscription.deleteMany({
    where: { id, ownerAddress: owner },
  });
  if (count !== 1) throw notFound("webhook_not_found", `webhook ${id} not found`);
  return toWebhookView(row);
}

/**
 * Turns a disabled subscription back on, from now on: what happened while it was disabled is
 * not sent (read it from the feed with `after`). Same secret. An active one is left as is.
 */
export async function enableWebhook(db: Db, owner: Address, id: string): Promise<WebhookView> {
  await getOwnedOrThrow(db, owner, id);
  const startAfterEventId = await feedHead(db);
  await db.webhookSubscription.updateMany({
    where: { id, ownerAddress: owner, status: "disabled" },
    data: {
      status: "active",
      disabledAt: null,
      disabledReason: null,
      startAfterEventId,
      updatedAt: new Date(),
    },
  });
  return getWebhook(db, owner, id);
}

export async function listDeliveries(
  db: Db,
  owner: Address,
  id: string,
  query: ListDeliveriesQuery,
): Promise<Page<WebhookDeliveryView>> {
  await getOwnedOrThrow(db, owner, id);
  const rows = await db.webhookDelivery.findMany({
    where: afterCursor({ subscriptionId: id }, decodeCursor(query.cursor), "desc"),
    orderBy: orderBy("desc"),
    take: query.limit + 1,
    include: { attemptLog: { orderBy: { attempt: "asc" }, take: 50 } },
  });
  return toPage(rows, query.limit, toDeliveryView);
}

/**
 * Sends a `webhook.test` message to the endpoint now, signed like every other, and answers
 * with its delivery (one attempt, no retries). It appears in the delivery log.
 */
export async function sendTestEvent(
  db: Db,
  owner: Address,
  id: string,
): Promise<WebhookDeliveryView> {
  const subscription = await getOwnedOrThrow(db, owner, id);
  const now = new Date();
  const messageId = newId("msg");
  // Created already claimed (attempt 1, leased): the workers leave it to this request.
  const delivery = await db.webhookDelivery.create({
    data: {
      id: newId("whd"),
      subscriptionId: subscription.id,
      messageId,
      type: TEST_EVENT_TYPE,
      payload: JSON.stringify({
        type: TEST_EVENT_TYPE,
        timestamp: now.toISOString(),
        data: { webhookId: subscription.id, messageId },
      }),
      attempts: 1,
      lastAttemptAt: now,
      nextAttemptAt: new Date(now.getTime() + leaseSeconds() * 1000),
      createdAt: now,
    },
  });
  await attemptClaimed(db, delivery.id, 1);
  const after = await db.webhookDelivery.findUniqueOrThrow({
    where: { id: delivery.id },
    include: { attemptLog: { orderBy: { attempt: "asc" } } },
  });
  return toDeliveryView(after);
}

async function getOwnedOrThrow(db: Db, owner: Address, id: string): Promise<WebhookSubscription> {
  const row = isPossibleId(id) ? await db.webhookSubscription.findUnique({ where: { id } }) : null;
  if (!row || row.ownerAddress !== owner)
    throw notFound("webhook_not_found", `webhook ${id} not found`);
  return row;
}

export function toWebhookView(row: WebhookSubscription): WebhookView {
  return {
    id: row.id,
    url: row.url,
    types: row.types as EventType[],
    categories: row.categories,
    status: row.status,
    disabledAt: row.disabledAt?.toISOString() ?? null,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
  };
}

function toDeliveryView(
  row: WebhookDelivery & { attemptLog: WebhookAttempt[] },
): WebhookDeliveryView {
  return {
    id: row.id,
    messageId: row.messageId,
    eventId: row.eventId?.toString() ?? null,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    attemptLog: row.attemptLog.map((attempt) => ({
      attempt: attempt.attempt,
      startedAt: attempt.startedAt.toISOString(),
      durationMs: attempt.durationMs,
      statusCode: attempt.statusCode,
      error: attempt.error,
      responseExcerpt: attempt.responseExcerpt,
    })),
  };
}
