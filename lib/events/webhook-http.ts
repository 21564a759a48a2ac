import http from "node:http";
import https from "node:https";
import net from "node:net";
import { Webhook } from "standardwebhooks";
import {
  addressRefusal,
  bareHost,
  guardedLookup,
  isLoopback,
  type OutboundPolicy,
  OutboundRefusal,
  parseWebhookUrl,
  type Resolver,
} from "./outbound";

/**
 * One signed webhook request, the Standard Webhooks way: `webhook-id` (the message's id, the
 * same on every retry), `webhook-timestamp` (Unix seconds of this attempt) and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, by the kept
 * `standardwebhooks` library). The connection goes only to an address checked by the SSRF
 * rules in the same lookup; redirects are not followed; the whole request has a deadline;
 * of the answer only a short excerpt is read.
 */

export const RESPONSE_EXCERPT_BYTES = 512;
const USER_AGENT = "AgentMarketplace-Webhooks/1";

export interface WebhookMessage {
  id: string;
  /** The JSON body, sent byte for byte as signed. */
  body: string;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  durationMs: number;
  startedAt: Date;
}

/** The Standard Webhooks headers for `message` signed with `secret` at `at`. */
export function signedHeaders(secret: string, message: WebhookMessage, at: Date) {
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(message.id, at, message.body),
  };
}

export async function sendWebhook(
  target: { url: string; secret: string },
  message: WebhookMessage,
  options: { policy: OutboundPolicy; timeoutMs: number; resolve?: Resolver },
): Promise<AttemptResult> {
  const startedAt = new Date();
  const finish = (result: Omit<AttemptResult, "durationMs" | "startedAt">): AttemptResult => ({
    ...result,
    durationMs: Date.now() - startedAt.getTime(),
    startedAt,
  });
  let url: URL;
  try {
    url = parseWebhookUrl(target.url, options.policy);
    const host = bareHost(url);
    // An address in the URL is connected to as is (no lookup): check it here.
    if (net.isIP(host)) {
      const refusal =
        url.protocol === "http:" && !isLoopback(host)
          ? `${host}, not a loopback address (plain http:// is allowed to loopback only)`
          : addressRefusal(host, options.policy);
      if (refusal) throw new OutboundRefusal(`url may not point at ${refusal}`);
    }
  } catch (error) {
    return finish({ ok: false, statusCode: null, error: describe(error), responseExcerpt: null });
  }
  const body = Buffer.from(message.body, "utf8");
  const headers = {
    "content-type": "application/json",
    "content-length": String(body.byteLength),
    "user-agent": USER_AGENT,
    ...signedHeaders(target.secret, message, startedAt),
  };
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const done = (result: Omit<AttemptResult, "durationMs" | "startedAt">) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(finish(result));
    };
    const client = url.protocol === "https:" ? https : http;
    const request = client.request({
      protocol: url.protocol,
      hostname: bareHost(url),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers,
      agent: false,
      lookup: guardedLookup(options.policy, {
        loopbackOnly: url.protocol === "http:",
        resolve: options.resolve,
      }),
    });
    const deadline = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`));
    }, options.timeoutMs);
    request.on("error", (error) =>
      done({ ok: false, statusCode: null, error: describe(error), responseExcerpt: null }),
    );
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = () => {
        const excerpt = excerptOf(Buffer.concat(chunks));
        const ok = status >= 200 && status < 300;
        const error = ok
          ? null
          : status >= 300 && status < 400
            ? `answered ${status}; redirects are not followed`
            : `answered ${status}`;
        done({ ok, statusCode: status, error, responseExcerpt: excerpt });
        response.destroy();
      };
      response.on("data", (chunk: Buffer) => {
        if (size >= RESPONSE_EXCERPT_BYTES) return;
        chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - size));
        size += chunk.byteLength;
        // Enough read: the rest of the body is never downloaded.
        if (size >= RESPONSE_EXCERPT_BYTES) answer();
      });
      response.on("end", answer);
      response.on("error", answer);
    });
    request.end(body);
  });
}

function excerptOf(bytes: Buffer): string | null {
  if (bytes.byteLength === 0) return null;
  const text = bytes
    .toString("utf8")
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, "");
  return text.slice(0, RESPONSE_EXCERPT_BYTES);
}

function describe(error: unknown): string {
  if (error instanceof OutboundRefusal) return `refused: ${error.message}`;
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 500);
}
