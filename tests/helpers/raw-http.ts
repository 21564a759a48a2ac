// HTTP/1.1 spoken by hand over a TCP socket, for the hostile-client tests: headers no fetch
// would send (a foreign Host, a lying Content-Length), bodies sent slowly or cut short, and
// a record of what the server did while the client was still sending.
import net from "node:net";

export interface RawExchange {
  /** Status of the server's answer; undefined when it closed without one. */
  status?: number;
  headers: Record<string, string>;
  body: string;
  /** Body bytes the client had written when the exchange ended. */
  sent: number;
  /** The server ended the connection before the client finished sending. */
  cutOff: boolean;
  /** Milliseconds from the last header byte written to the first answer byte (or close). */
  answeredAfterMs: number;
}

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string | number>;
  /** Body pieces written one after the other, `pauseMs` apart. */
  body?: { chunk: Buffer; count: number; pauseMs?: number };
  /** Send the body with Transfer-Encoding: chunked. */
  chunked?: boolean;
  /** Give up (and fail) after this long. */
  timeoutMs?: number;
  /** Headers written one byte at a time, this many ms apart (slow-loris on the headers). */
  headerPauseMs?: number;
}

/** Sends one request on a fresh connection and waits for the server to answer or close. */
export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawExchange> {
  const url = new URL(baseUrl);
  const head =
    `${request.method} ${request.path} HTTP/1.1\r\n` +
    Object.entries({ connection: "close", ...request.headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("") +
    (request.chunked ? "transfer-encoding: chunked\r\n" : "") +
    "\r\n";

  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    let sent = 0;
    let sending = true;
    let headersWrittenAt = 0;
    let answeredAt = 0;
    let done = false;
    const timer = setTimeout(() => {
      finish(new Error(`no answer and no close within ${request.timeoutMs ?? 30_000} ms`));
    }, request.timeoutMs ?? 30_000);

    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) return reject(error);
      resolve({
        ...parseResponse(Buffer.concat(received)),
        sent,
        cutOff: sending,
        answeredAfterMs: (answeredAt || Date.now()) - headersWrittenAt,
      });
    };

    socket.on("data", (data) => {
      if (!answeredAt) answeredAt = Date.now();
      received.push(data);
    });
    socket.on("end", () => finish());
    socket.on("close", () => finish());
    // A reset (after the answer, or instead of one) ends the exchange; the test judges what
    // arrived. Only silence is an error (the timer above).
    socket.on("error", () => finish());

    // Each write waits for its flush and then for one turn of the event loop's I/O phase: a
    // server that reads fast (as one discarding a refused body does) flushes every write at
    // once, and without the turn the client would write its whole body before it ever read
    // the answer that arrived meanwhile, as no real client does.
    const write = (data: Buffer | string) =>
      new Promise<boolean>((done) => {
        if (socket.destroyed || answeredAt) return done(false);
        socket.write(data, (error) => setImmediate(() => done(!error && !answeredAt)));
      });
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    socket.once("connect", async () => {
      if (request.headerPauseMs) {
        for (const byte of head) {
          if (!(await write(byte))) return;
          await pause(request.headerPauseMs);
        }
      } else if (!(await write(head))) return;
      headersWrittenAt = Date.now();
      const body = request.body;
      for (let index = 0; body && index < body.count; index++) {
        const framed = request.chunked
          ? Buffer.concat([
              Buffer.from(`${body.chunk.length.toString(16)}\r\n`),
              body.chunk,
              Buffer.from("\r\n"),
            ])
          : body.chunk;
        if (!(await write(framed))) return;
        sent += body.chunk.length;
        if (body.pauseMs) await pause(body.pauseMs);
      }
      if (request.chunked && !(await write("0\r\n\r\n"))) return;
      sending = false;
    });
  });
}

function parseResponse(bytes: Buffer): {
  status?: number;
  headers: Record<string, string>;
  body: string;
} {
  const text = bytes.toString("utf8");
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return { headers: {}, body: text };
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers["transfer-encoding"]?.includes("chunked")) body = unchunk(body);
  return { status: Number(statusLine.split(" ")[1]) || undefined, headers, body };
}

function unchunk(text: string): string {
  let out = "";
  let rest = text;
  for (;;) {
    const line = rest.indexOf("\r\n");
    if (line < 0) return out;
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}
