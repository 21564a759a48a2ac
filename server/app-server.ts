// The HTTP server around Next.js (`npm start`, `npm run dev`, the tests and the benchmark).
// Next's route handlers never see the socket and Next only reads request bodies when asked,
// so what must hold before Next runs is decided here, per request:
//   - the client address, from the socket (X-Forwarded-For only with TRUST_PROXY_HOPS),
//     handed to the app in an internal header that is always overwritten;
//   - a declared Content-Length over the path's limit → 413 at once, body unread;
//   - a request whose body was left unread (401, 413, ...) closes its connection instead of
//     draining whatever the client keeps sending;
//   - headers and body must arrive within REQUEST_TIMEOUT_SECONDS, else 408 and close;
//   - an /api path that is not valid percent-encoding → JSON 400 (Next would answer a
//     plain-text 500);
//   - a process whose heap nears its limit answers 503 + Retry-After (server/heap-guard.ts),
//     but to the liveness probe;
//   - pages get a nonce-based Content-Security-Policy, and production over https HSTS
//     (server/security-headers.ts).
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import next from "next";
import { bodyLimitFor } from "@/lib/shared/body-limits";
import { formatBytes } from "@/lib/shared/format";
import { CLIENT_ADDRESS_HEADER, clientAddress, markAppServer } from "@/lib/platform/client-address";
import { getConfig } from "@/lib/platform/config";
import { errorForLog } from "@/lib/platform/redact";
import type { ErrorCode } from "@/lib/shared/error-codes";
import { startHeapGuard } from "./heap-guard";
import { isPagePath, securityHeaders } from "./security-headers";

export interface AppServerOptions {
  dev: boolean;
  /** Interface to listen on; undefined → every interface. */
  hostname?: string;
  port: number;
  dir?: string;
}

export interface AppServer {
  url: string;
  server: http.Server;
  /** Stops listening and lets requests in flight finish for up to `drainMs` (default: none). */
  close(drainMs?: number): Promise<void>;
}

/** The liveness probe (lib/api/operations/health.ts): never shed. */
const LIVENESS_PATH = "/api/health";

/** How often a draining server closes the connections that went idle (answered their request). */
const DRAIN_POLL_MS = 50;

/** How often Node checks for requests past their timeout (its default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
const HEADERS_TIMEOUT_MAX_MS = 20_000;
/**
 * Idle keep-alive connections stay open longer than clients and load balancers keep theirs
 * (60 s is the common default), so that the client, not this server, closes an idle one: a
 * server closing it while the client reuses it loses that request ("other side closed").
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export async function startAppServer(options: AppServerOptions): Promise<AppServer> {
  // Before Next loads the app: its routes refuse to run without this server, and in
  // development the site's own origins are http://localhost:PORT and 127.0.0.1:PORT.
  markAppServer();
  process.env.PORT = String(options.port);
  const config = getConfig();
  const requestTimeout = config.REQUEST_TIMEOUT_SECONDS * 1000;

  const server = http.createServer({
    requestTimeout,
    headersTimeout: Math.min(HEADERS_TIMEOUT_MAX_MS, requestTimeout),
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  const app = next({
    dev: options.dev,
    dir: options.dir,
    hostname: options.hostname ?? "localhost",
    port: options.port,
    httpServer: server,
  });
  await app.prepare();
  const handle = app.getRequestHandler();
  const trustedHops = config.TRUST_PROXY_HOPS;
  const heap = startHeapGuard(config.HEAP_SHED_PERCENT);
  const security = securityHeaders(config);

  const serve = (req: http.IncomingMessage, res: http.ServerResponse, expectsContinue: boolean) => {
    req.headers[CLIENT_ADDRESS_HEADER] = clientAddress(
      req.socket.remoteAddress,
      req.headers["x-forwarded-for"],
      trustedHops,
    );
    const withBody = hasBody(req);
    if (withBody) lingerOnClose(req.socket);
    const pathname = requestPath(req.url);
    // Liveness is answered even while shedding: the process is alive and recovers by itself
    // (a restart would lose its requests in flight); readiness, like the rest, is refused.
    if (heap.overloaded && pathname !== LIVENESS_PATH) {
      return refuse(req, res, 503, "the server is busy; retry shortly", "server_busy", {
        "Retry-After": "5",
      });
    }
    for (const [name, value] of Object.entries(security.always)) res.setHeader(name, value);
    // Next.js takes its scripts' nonce from the request's CSP header: only this server sets it.
    delete req.headers["content-security-policy"];
    delete req.headers["content-security-policy-report-only"];
    if (isPagePath(pathname)) {
      const page = security.forPage();
      for (const [name, value] of Object.entries(page.headers)) {
        req.headers[name.toLowerCase()] = value;
        res.setHeader(name, value);
      }
    }
    if (pathname.startsWith("/api/") && !isDecodable(pathname)) {
      return refuse(
        req,
        res,
        400,
        "the request path is not valid percent-encoded UTF-8",
        "invalid_path",
      );
    }
    const limit = bodyLimitFor(pathname);
    const declared = req.headers["content-length"];
    if (declared !== undefined && !(Number(declared) <= limit)) {
      return refuse(
        req,
        res,
        413,
        `the request body is larger than ${formatBytes(limit)}`,
        "payload_too_large",
      );
    }
    if (withBody) closeIfBodyUnread(req, res);
    // Told to send only once the app starts reading: a write refused before it reads its body
    // (401 without a session, 403, 409) is answered before the client uploads anything.
    if (expectsContinue) req.once("resume", () => res.writeContinue());
    handle(req, res).catch((error: unknown) => {
      console.error("Request handler failed:", errorForLog(error));
      if (!res.headersSent) refuse(req, res, 500, "internal server error", "internal_error");
      else res.destroy();
    });
  };
  server.on("request", (req, res) => serve(req, res, false));
  // `Expect: 100-continue` (curl does it for large bodies): the checks above, and the app's own
  // before it reads the body, run before the client is told to send.
  server.on("checkContinue", (req, res) => serve(req, res, true));
  server.on("clientError", answerClientError);

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost =
    options.hostname && options.hostname !== "0.0.0.0" ? options.hostname : "localhost";
  return {
    url: `http://${shownHost.includes(":") ? `[${shownHost}]` : shownHost}:${port}`,
    server,
    async close(drainMs = 0) {
      heap.stop();
      await new Promise<void>((resolve) => {
        // No new connections (a cluster worker leaves its primary's rotation); idle ones close
        // now, busy ones once answered, any still busy after `drainMs` are cut.
        const idle = setInterval(() => server.closeIdleConnections(), DRAIN_POLL_MS);
        const cut = setTimeout(() => server.closeAllConnections(), drainMs);
        server.close(() => {
          clearInterval(idle);
          clearTimeout(cut);
          resolve();
        });
        if (drainMs <= 0) server.closeAllConnections();
      });
      await app.close();
    },
  };
}

/** The path of a request target, without query or fragment (origin- or absolute-form). */
export function requestPath(url: string | undefined): string {
  const target = url ?? "/";
  if (/^https?:\/\//i.test(target)) {
    try {
      return new URL(target).pathname;
    } catch {
      return "/";
    }
  }
  return target.split(/[?#]/, 1)[0] ?? "/";
}

function isDecodable(pathname: string): boolean {
  try {
    for (const segment of pathname.split("/")) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

function hasBody(req: http.IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * When the response starts before the whole body arrived (a 401 before reading, a 413 cut
 * off mid-stream, a handler that ignores bodies), the connection is closed after the
 * response instead of kept alive: Node would otherwise read and discard whatever the client
 * keeps sending.
 */
function closeIfBodyUnread(req: http.IncomingMessage, res: http.ServerResponse) {
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
    if (!req.complete && !this.headersSent) this.setHeader("Connection", "close");
    return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
  } as typeof res.writeHead;
}

/** How long a connection closed with its body unread keeps discarding what still arrives. */
const LINGER_MS = 2_000;
const LINGERING = Symbol("lingering");

/**
 * Closing a socket while the client is still sending makes the kernel answer the next bytes
 * with a reset, and a client busy writing often loses our 413 / 401 to it. So a connection
 * closed after a response to an unread body first sends its FIN, then keeps reading and
 * discarding for up to LINGER_MS (or until the client closes its side), then is destroyed:
 * bounded in time, never buffered.
 */
function lingerOnClose(socket: Socket) {
  const marked = socket as Socket & { [LINGERING]?: true };
  if (marked[LINGERING]) return;
  marked[LINGERING] = true;
  // Node's HTTP server ends a `Connection: close` response's socket with destroySoon().
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.destroyed) return;
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once("close", () => clearTimeout(timer));
    this.once("end", () => this.destroy());
    this.end();
  };
}

/** A JSON error answered by this server itself, closing the connection. */
function refuse(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  message: string,
  code: ErrorCode,
  headers: Record<string, string> = {},
) {
  const body = JSON.stringify({ error: message, code });
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    Connection: "close",
  });
  res.end(body);
  // Whatever body is in flight is discarded until the socket closes; never buffered.
  req.resume();
}

const CLIENT_ERRORS: Record<string, [number, string, ErrorCode]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    "the request (headers and body) did not arrive in time",
    "request_timeout",
  ],
  HPE_HEADER_OVERFLOW: [431, "the request headers are too large", "headers_too_large"],
};

/**
 * Parse errors and timeouts on a connection: a JSON answer when no response has started,
 * then the connection is closed (a trickling body is cut off here).
 */
function answerClientError(error: Error & { code?: string }, socket: Socket) {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
  if (inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message, code] = CLIENT_ERRORS[error.code ?? ""] ?? [
    400,
    "malformed HTTP request",
    "malformed_request",
  ];
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
    () => socket.destroy(),
  );
}
