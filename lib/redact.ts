// Error text for logs and records: one line, URLs cut to their origin (RPC and facilitator
// URLs often carry API keys in their path or query).
export function redactUrls(text: string): string {
  return text.replace(/\b(https?|wss?):\/\/[^\s"'<>]+/gi, (url) => {
    try {
      return `${new URL(url).origin}/…`;
    } catch {
      return "<url>";
    }
  });
}

export function errorSummary(error: unknown): string {
  const text =
    error instanceof Error ? (error.message.split("\n")[0] ?? error.name) : String(error);
  return redactUrls(text).slice(0, 500);
}
