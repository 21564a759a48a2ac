// Every request a simulated client makes goes through a recording fetch: when it started and
// ended, the endpoint (ids replaced by :id), the status (0: no answer, the connection failed;
// -1: no answer within REQUEST_TIMEOUT_MS, a hang), the error code and Retry-After of an error
// answer, and for a 2xx write the id it created, so that the end of the run can look for it in
// the database.

/** A request not answered within this is a hang (the server's own deadlines are shorter). */
export const REQUEST_TIMEOUT_MS = 30_000;

export const NO_ANSWER = 0;
export const HANG = -1;

export interface RequestRecord {
  client: string;
  /** The app server it went to (app-a, app-b). */
  server: string;
  method: string;
  endpoint: string;
  /** The path as sent (ids in it). */
  path: string;
  /** Milliseconds since the run's start. */
  start: number;
  end: number;
  status: number;
  code?: string;
  retryAfter?: string;
  /** A settle request without a signature: its 402 is the challenge, the answer asked for. */
  challenge?: boolean;
  /** The network error of a request that got no answer. */
  error?: string;
  /** A 2xx write: the id of what it created or changed (`data.id`), and the job's id. */
  createdId?: string;
  jobId?: string;
  txHash?: string;
}

export class Recorder {
  readonly records: RequestRecord[] = [];
  readonly t0 = Date.now();
  private readonly servers = new Map<string, string>();

  constructor(servers: { name: string; url: string }[]) {
    for (const server of servers) this.servers.set(new URL(server.url).host, server.name);
  }

  now(): number {
    return Date.now() - this.t0;
  }

  /**
   * A fetch for `client` that sends each request to one of the app servers at random (as a
   * load balancer would: the URL's origin is only the public one) and records it. A request
   * that got no answer at all (a server down: refused or reset) is tried once more on another
   * server, as a balancer fails over; both attempts are recorded.
   */
  fetchFor(client: string, rand: () => number = Math.random): typeof fetch {
    const origins = [...this.servers.keys()];
    return async (input, init) => {
      const request = new Request(input, init);
      const body = request.method === "GET" ? undefined : await request.arrayBuffer();
      const first = Math.floor(rand() * origins.length);
      for (let attempt = 0; ; attempt++) {
        const host = origins[(first + attempt) % origins.length]!;
        const url = new URL(request.url);
        url.host = host;
        try {
          return await this.send(
            client,
            new Request(url, {
              method: request.method,
              headers: request.headers,
              body,
              signal: request.signal,
            }),
          );
        } catch (error) {
          const timedOut = error instanceof DOMException && error.name === "TimeoutError";
          if (timedOut || attempt + 1 >= Math.min(2, origins.length)) throw error;
        }
      }
    };
  }

  private async send(client: string, request: Request): Promise<Response> {
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);
    const url = new URL(request.url);
    const record: RequestRecord = {
      client,
      server: this.servers.get(url.host) ?? url.host,
      method: request.method,
      endpoint: `${request.method} ${normalisePath(url.pathname)}`,
      path: url.pathname,
      challenge:
        /\/settle$/.test(url.pathname) && !request.headers.has("payment-signature")
          ? true
          : undefined,
      start: this.now(),
      end: 0,
      status: NO_ANSWER,
    };
    this.records.push(record);
    try {
      const response = await fetch(new Request(request, { signal }));
      record.status = response.status;
      record.retryAfter = response.headers.get("retry-after") ?? undefined;
      const isWrite = request.method !== "GET";
      if (response.status >= 400 || (isWrite && response.ok)) {
        await readBody(response.clone(), record);
      }
      record.end = this.now();
      return response;
    } catch (error) {
      record.end = this.now();
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
      record.status = timedOut ? HANG : NO_ANSWER;
      record.error = describe(error);
      throw error;
    }
  }
}

async function readBody(response: Response, record: RequestRecord) {
  if (!response.headers.get("content-type")?.includes("json")) return;
  try {
    const body = (await response.json()) as { code?: string; data?: Record<string, unknown> };
    if (body.code) record.code = body.code;
    const data = body.data;
    if (data && typeof data === "object") {
      if (typeof data.id === "string") record.createdId = data.id;
      if (typeof data.jobId === "string") record.jobId = data.jobId;
      if (typeof data.txHash === "string") record.txHash = data.txHash;
    }
  } catch {
    // not JSON after all: nothing to note
  }
}

/** `/api/v1/jobs/job_abc/proposals` → `/api/v1/jobs/:id/proposals`. */
export function normalisePath(pathname: string): string {
  return pathname
    .split("/")
    .map((segment) =>
      /^[a-z]+_[A-Za-z0-9_-]{6,}$/.test(segment) || /^0x[0-9a-fA-F]+$/.test(segment)
        ? ":id"
        : segment,
    )
    .join("/");
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
