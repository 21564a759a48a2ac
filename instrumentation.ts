// Runs once when the server starts: a bad configuration stops it with a clear message
// instead of failing on the first request; then the settlement reconciler, the webhook
// worker and the retention pass (pruning old events and delivery logs) start.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkStartupOrExit } = await import("@/lib/api/startup");
  await checkStartupOrExit();
  const { startSettlementReconciler } = await import("@/lib/payments/reconcile/background");
  startSettlementReconciler();
  const { startWebhookWorker } = await import("./lib/events/webhook-worker");
  startWebhookWorker();
  const { startRetentionWorker } = await import("./lib/events/retention");
  startRetentionWorker();
}
