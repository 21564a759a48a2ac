// Text for logs and records: one line, URLs cut to their origin (RPC and facilitator URLs often
// carry API keys in their path or query), access-token secrets blanked out.
import { inspect } from "node:util";

export function redactUrls(text: string): string {
  return text.replace(/\b(https?|wss?):\/\/[^\s"'<>]+/gi, (url) => {
    try {
      return `${new URL(url).origin}/…`;
    } catch {
      return "<url>";
    }
  });
}

/** Access-token secrets (`amk_…`, lib/auth/access-tokens.ts) → `amk_[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(/amk_[A-Za-z0-9_-]*/g, "amk_[redacted]");
}

export function errorSummary(error: unknown): string {
  const text =
    error instanceof Error ? (error.message.split("\n")[0] ?? error.name) : String(error);
  return redactSecrets(redactUrls(text)).slice(0, 500);
}

/** An unexpected error in full (stack, cause, fields) for the server log, secrets blanked. */
export function errorForLog(error: unknown): string {
  return redactSecrets(inspect(error, { depth: 4 }));
}
