// Deadlines of protected payments as people read them: one format on the server's pages and
// in the pay dialog (UTC, so that a server render and the browser agree), and windows in
// hours or days. Pure.

const deadlineFormat = new Intl.DateTimeFormat("en-US", {
  dateStyle: "medium",
  timeStyle: "short",
  timeZone: "UTC",
  hour12: false,
});

/** "Dec 3, 2026, 14:05 UTC", from an ISO timestamp or unix seconds. */
export function formatDeadline(at: string | number): string {
  const date = typeof at === "number" ? new Date(at * 1000) : new Date(at);
  return `${deadlineFormat.format(date)} UTC`;
}

/** 7200 → "2 hours", 172800 → "2 days", 5400 → "1.5 hours". */
export function formatWindow(seconds: number): string {
  const days = seconds / 86_400;
  if (Number.isInteger(days) && days >= 1) return days === 1 ? "1 day" : `${days} days`;
  const hours = Math.round((seconds / 3600) * 10) / 10;
  return hours === 1 ? "1 hour" : `${hours} hours`;
}

/** Where a person can see a contract: BaseScan on Base; the local chain has no explorer. */
export function explorerAddressUrl(network: string, address: string): string | null {
  return network === "eip155:8453" ? `https://basescan.org/address/${address}` : null;
}
