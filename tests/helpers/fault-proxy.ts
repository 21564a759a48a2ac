// A small loopback HTTP proxy for fault injection: placed between the server under test and
// the chain's JSON-RPC (or the facilitator service), it forwards everything until a test
// tells it to delay, hold, fail or cut a matching request or its response, and it lets a
// test wait until a given request passes (to kill a process at that exact step).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxiedRequest {
  method: string;
  path: string;
  body: string;
  /** JSON-RPC calls in the body, in order (a batch has several). */
  rpcCalls: RpcCall[];
  /** Their method names. */
  rpcMethods: string[];
}

/** One JSON-RPC call of a request body. */
export interface RpcCall {
  method: string;
  params: unknown;
}

/** What to do with a matching request before it goes upstream. */
export type RequestFault =
  | { kind: "delay"; ms: number }
  /** Never forward, never answer: the client waits until its own timeout. */
  | { kind: "hold" }
  /** Answer an HTTP error without forwarding. */
  | { kind: "fail"; status?: number }
  /** Close the connection without forwarding or answering. */
  | { kind: "cut" }
  /** Answer this instead of the upstream (a service that lies). */
  | { kind: "respond"; status: number; body: unknown };

/** What to do with the upstream's answer to a matching request. */
export type ResponseFault =
  | { kind: "delay"; ms: number }
  /** The request reached upstream, but its answer never comes back. */
  | { kind: "hold" }
  /** The request reached upstream, then the connection is closed without an answer. */
  | { kind: "cut" };

export interface FaultRule {
  match: (request: ProxiedRequest) => boolean;
  request?: RequestFault;
  response?: ResponseFault;
  /** How many matching requests the rule applies to (default: until removed). */
  times?: number;
}

type Waiter = {
  match: (request: ProxiedRequest) => boolean;
  stage: "request" | "response";
  resolve: (request: ProxiedRequest) => void;
};

export class FaultProxy {
  private readonly rules = new Set<FaultRule & { used: number }>();
  private readonly waiters = new Set<Waiter>();
  private readonly held = new Set<http.ServerResponse>();
  /** Every request that reached the proxy, in order. */
  readonly seen: ProxiedRequest[] = [];
  private server!: http.Server;
  url = "";

  private constructor(private upstream: string) {}

  /** Points the proxy at another upstream (a restarted service). */
  setUpstream(url: string): void {
    this.upstream = url.replace(/\/+$/, "");
  }

  static async start(upstream: string): Promise<FaultProxy> {
    const proxy = new FaultProxy(upstream.replace(/\/+$/, ""));
    proxy.server = http.createServer((req, res) => void proxy.handle(req, res));
    proxy.server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", () => resolve()));
    proxy.url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    return proxy;
  }

  /** Adds a fault; returns a function that removes it. */
  add(rule: FaultRule): () => void {
    const entry = { ...rule, used: 0 };
    this.rules.add(entry);
    return () => this.rules.delete(entry);
  }

  clear(): void {
    this.rules.clear();
  }

  /** Resolves when a matching request arrives (`request`) or has been answered upstream. */
  waitFor(
    match: (request: ProxiedRequest) => boolean,
    stage: "request" | "response" = "request",
  ): Promise<ProxiedRequest> {
    return new Promise((resolve) => this.waiters.add({ match, stage, resolve }));
  }

  /** Answers nothing more to held requests (their clients see the connection close). */
  releaseHeld(): void {
    for (const res of this.held) res.destroy();
    this.held.clear();
  }

  async close(): Promise<void> {
    this.releaseHeld();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private notify(request: ProxiedRequest, stage: "request" | "response") {
    for (const waiter of [...this.waiters]) {
      if (waiter.stage === stage && waiter.match(request)) {
        this.waiters.delete(waiter);
        waiter.resolve(request);
      }
    }
  }

  private ruleFor(request: ProxiedRequest) {
    for (const rule of this.rules) {
      if (!rule.match(request)) continue;
      rule.used += 1;
      if (rule.times !== undefined && rule.used >= rule.times) this.rules.delete(rule);
      return rule;
    }
    return undefined;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const rpcCalls = rpcCallsOf(body);
    const request: ProxiedRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      body,
      rpcCalls,
      rpcMethods: rpcCalls.map((call) => call.method),
    };
    this.seen.push(request);
    this.notify(request, "request");
    const rule = this.ruleFor(request);
    const before = rule?.request;
    if (before?.kind === "delay") await sleep(before.ms);
    if (before?.kind === "hold") return void this.held.add(res);
    if (before?.kind === "cut") return void res.destroy();
    if (before?.kind === "respond") {
      res.writeHead(before.status, { "content-type": "application/json" });
      return void res.end(JSON.stringify(before.body));
    }
    if (before?.kind === "fail") {
      res.writeHead(before.status ?? 503, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: "injected fault" }));
    }

    let upstream: Response;
    let text: string;
    try {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(key)) {
          headers[key] = value;
        }
      }
      upstream = await fetch(this.upstream + request.path, {
        method: request.method,
        headers,
        body: request.method === "GET" || request.method === "HEAD" ? undefined : body,
      });
      text = await upstream.text();
    } catch {
      return void res.destroy();
    }
    this.notify(request, "response");
    const after = rule?.response;
    if (after?.kind === "delay") await sleep(after.ms);
    if (after?.kind === "hold") return void this.held.add(res);
    if (after?.kind === "cut") return void res.destroy();
    res.writeHead(upstream.status, {
      "content-type": upstream.headers.get("content-type") ?? "application/json",
    });
    res.end(text);
  }
}

function rpcCallsOf(body: string): RpcCall[] {
  try {
    const parsed = JSON.parse(body) as unknown;
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    return calls.flatMap((call) =>
      typeof call === "object" && call && typeof (call as { method?: unknown }).method === "string"
        ? [{ method: (call as { method: string }).method, params: (call as RpcCall).params }]
        : [],
    );
  } catch {
    return [];
  }
}

/** Matches JSON-RPC requests calling `method`. */
export const rpc =
  (method: string) =>
  (request: ProxiedRequest): boolean =>
    request.rpcMethods.includes(method);

/** Matches HTTP requests to `path` (e.g. the facilitator's "/settle"). */
export const path =
  (wanted: string) =>
  (request: ProxiedRequest): boolean =>
    request.path.split("?")[0] === wanted;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
