import type { Category, JobStatus } from "@/lib/validation";

/** Display helpers shared by server and client components (no Node or browser APIs). */

const usdcFormat = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});

/** 1250 → "1,250.00"; 0.000001 → "0.000001". */
export function formatUsdc(amount: number): string {
  return usdcFormat.format(amount);
}

/** Atomic units (6 decimals) as a decimal string, without floating point. */
export function atomicToDecimalString(atomic: bigint): string {
  const negative = atomic < 0n;
  const abs = negative ? -atomic : atomic;
  const whole = abs / 1_000_000n;
  const fraction = (abs % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  const wholeText = whole.toLocaleString("en-US");
  const text =
    fraction.length < 2 ? `${wholeText}.${fraction.padEnd(2, "0")}` : `${wholeText}.${fraction}`;
  return negative ? `-${text}` : text;
}

export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

const CATEGORY_LABELS: Partial<Record<Category, string>> = { seo: "SEO", devops: "DevOps" };

export function categoryLabel(category: Category | string): string {
  const known = CATEGORY_LABELS[category as Category];
  if (known) return known;
  const text = category.replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export const STATUS_LABELS: Record<JobStatus, string> = {
  open: "Open",
  in_progress: "In progress",
  delivered: "Delivered",
  completed: "Completed",
};

export function pluralize(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : plural}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "3 days ago", relative to `now` (server render time). */
export function timeAgo(iso: string, now: number = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return "just now";
  if (abs < 3600) return relative.format(Math.round(seconds / 60), "minute");
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), "hour");
  if (abs < 30 * 86_400) return relative.format(Math.round(seconds / 86_400), "day");
  if (abs < 365 * 86_400) return relative.format(Math.round(seconds / (30 * 86_400)), "month");
  return relative.format(Math.round(seconds / (365 * 86_400)), "year");
}

export function formatDate(iso: string): string {
  return new Date(iso).toLocaleDateString("en-US", {
    year: "numeric",
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });
}

/** The time a server render uses for "3 days ago" labels (one value per page render). */
export function requestTime(): number {
  return Date.now();
}
