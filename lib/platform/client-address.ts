import { isIP } from "node:net";

/**
 * Who is on the other end of a request, as the server's own socket sees it. Next.js route
 * handlers never see the socket, and Next fills `x-forwarded-for` only when the client sent
 * none, so the app server around Next (server/app-server.ts) computes the address and hands
 * it over in an internal header that it always overwrites: a client-sent copy never arrives.
 * X-Forwarded-For counts only with TRUST_PROXY_HOPS=N (the Nth address from the right).
 */

export const CLIENT_ADDRESS_HEADER = "x-marketplace-client-address";

const APP_SERVER_FLAG = Symbol.for("marketplace.appServer");
type FlaggedGlobal = typeof globalThis & { [APP_SERVER_FLAG]?: true };

/** Called by the app server before Next.js loads: the app's routes run behind it. */
export function markAppServer(): void {
  (globalThis as FlaggedGlobal)[APP_SERVER_FLAG] = true;
}

/**
 * Refuses to run the app without the server that measures client addresses and body limits
 * (plain `next start` / `next dev` would let any client choose its own address).
 */
export function assertBehindAppServer(): void {
  if ((globalThis as FlaggedGlobal)[APP_SERVER_FLAG]) return;
  throw new Error(
    "The app must run inside its own server (server/main.ts): start it with `npm start` or " +
      "`npm run dev`, not `next start` / `next dev`. That server measures client addresses " +
      "for rate limits and refuses oversized bodies before Next.js reads them.",
  );
}

/**
 * The client address from the socket's peer and, with `trustedHops` > 0, X-Forwarded-For:
 * each trusted proxy appends the address it received the request from, so the Nth entry
 * from the right is the client. With fewer entries than hops, the leftmost (the furthest
 * address a trusted proxy vouched for) counts. An entry that is not an IP address is ignored
 * in favour of the socket's peer.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedHops: number,
): string {
  const peer = normalizeAddress(socketAddress) ?? "unknown";
  if (trustedHops <= 0 || forwardedFor === undefined) return peer;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor)
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return peer;
  const chosen = entries[Math.max(entries.length - trustedHops, 0)];
  return normalizeAddress(chosen) ?? peer;
}

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) → IPv4; anything that is not an IP → undefined. */
export function normalizeAddress(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const bare = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped && isIP(mapped[1]!) === 4) return mapped[1];
  return isIP(bare) ? bare.toLowerCase() : undefined;
}

/**
 * The rate-limit subject for an address: IPv4 as is, IPv6 by its /64 network, since one
 * host usually holds a whole /64 and could otherwise rotate through it.
 */
export function addressSubject(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  const prefix = groups.slice(0, 4).map((group) => (parseInt(group, 16) || 0).toString(16));
  return `${prefix.join(":")}::/64`;
}

/** The address the app server measured for this request. */
export function requestClientAddress(req: Request): string {
  return req.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
}
