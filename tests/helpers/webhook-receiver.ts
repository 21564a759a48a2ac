// A webhook endpoint for tests: an HTTP server on loopback that records every request and
// verifies its Standard Webhooks signature with the `standardwebhooks` library, answering what
// the test tells it to (a status per request, a delay, a redirect).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The verified JSON body, or null when the signature did not verify. */
  payload: any;
  verifyError: string | null;
  answered: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The secret to verify with (set once the subscription is created). */
  secret: string | undefined;
  /** The status for the next requests, in order (then `otherwise`). */
  answers: number[];
  otherwise: number;
  /** Never answers (to test the request deadline). */
  hang: boolean;
  /** The body of the answer. */
  answerBody: string;
  /** Where a 3xx answer points. */
  redirectTo: string | undefined;
  headersOf(index: number): http.IncomingHttpHeaders;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = "/hooks"): Promise<WebhookReceiver> {
  const headers: http.IncomingHttpHeaders[] = [];
  const receiver: Omit<WebhookReceiver, "url" | "close"> = {
    received: [],
    secret: undefined,
    answers: [],
    otherwise: 200,
    hang: false,
    answerBody: "thanks",
    redirectTo: undefined,
    headersOf: (index) => headers[index]!,
    async waitFor(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(
            `the receiver got ${receiver.received.length} of ${count} webhooks within ${timeoutMs} ms`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return receiver.received;
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const one = (name: string) => String(req.headers[name] ?? "");
      let payload: unknown = null;
      let verifyError: string | null = null;
      try {
        if (!receiver.secret) throw new Error("no secret to verify with");
        payload = new Webhook(receiver.secret).verify(body, {
          "webhook-id": one("webhook-id"),
          "webhook-timestamp": one("webhook-timestamp"),
          "webhook-signature": one("webhook-signature"),
        });
      } catch (error) {
        verifyError = error instanceof Error ? error.message : String(error);
      }
      const answered = req.url === path ? (receiver.answers.shift() ?? receiver.otherwise) : 404;
      headers.push(req.headers);
      receiver.received.push({
        id: one("webhook-id"),
        timestamp: one("webhook-timestamp"),
        signature: one("webhook-signature"),
        body,
        payload,
        verifyError,
        answered,
      });
      if (receiver.hang) return;
      if (receiver.redirectTo) res.setHeader("Location", receiver.redirectTo);
      res.writeHead(answered, { "content-type": "text/plain" });
      res.end(receiver.answerBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return Object.assign(receiver, {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
