// The run's webhook receivers: small local HTTP servers (tests/helpers/webhook-receiver.ts)
// that record every delivery by its `webhook-id` and verify its signature, each subscribed to
// every event by one wallet. The second one now and then answers 500 to its next request, so
// that retries (the same id again) are part of every run.
import { unwrap } from "@agent-marketplace/client";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { onCleanup } from "./cleanup";
import type { Actor } from "./load";

export interface Subscription {
  id: string;
  receiver: WebhookReceiver;
}

export async function startReceivers(owner: Actor, count = 2): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  for (let i = 0; i < count; i++) {
    const receiver = await startWebhookReceiver();
    onCleanup(`webhook receiver ${i}`, () => receiver.close());
    const created = await unwrap(
      owner.client.POST("/api/v1/webhooks", { body: { url: receiver.url } }),
    );
    receiver.secret = (created as { secret: string }).secret;
    subscriptions.push({ id: created.id, receiver });
  }
  return subscriptions;
}

/** Every few seconds, the flaky receiver's next answer is a 500 (returns the stopper). */
export function makeFlaky(receiver: WebhookReceiver, everyMs = 4_000): () => void {
  const timer = setInterval(() => receiver.answers.push(500), everyMs);
  return () => clearInterval(timer);
}

/** Deliveries as the receiver saw them: per webhook-id, how many times, and bad signatures. */
export function receivedById(receiver: WebhookReceiver) {
  const byId = new Map<string, number>();
  let badSignatures = 0;
  for (const hit of receiver.received) {
    byId.set(hit.id, (byId.get(hit.id) ?? 0) + 1);
    if (hit.verifyError) badSignatures++;
  }
  return { byId, badSignatures };
}
