import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";
import { type Env, getConfig } from "@/lib/platform/config";

/**
 * Where this server may send a webhook (SSRF rules). A URL is checked when it is subscribed
 * and again, through `guardedLookup`, on every delivery: the connection goes to an address
 * that was checked in that same lookup, so a name that later resolves elsewhere (DNS
 * rebinding) reaches nothing it may not.
 *
 * - https only; http only to loopback where loopback is allowed (development and tests).
 * - Every address the name resolves to must be public unicast: private (RFC 1918), loopback,
 *   link-local (169.254/16, fe80::/10, the cloud metadata address), carrier-grade NAT
 *   (100.64/10), unique-local (fc00::/7), unspecified, multicast, broadcast, reserved and
 *   documentation ranges, 6to4, Teredo, NAT64 and the other special-purpose ranges are
 *   refused; an IPv4-mapped IPv6 address is judged as its IPv4 address. One bad address
 *   refuses the whole name.
 * - Loopback only with WEBHOOK_ALLOW_LOOPBACK (on by default in development, refused in
 *   production).
 * - No user name or password in the URL.
 */

export interface OutboundPolicy {
  allowLoopback: boolean;
}

export function webhookPolicy(config: Env = getConfig()): OutboundPolicy {
  const explicit = config.WEBHOOK_ALLOW_LOOPBACK;
  const allowLoopback =
    config.NODE_ENV !== "production" &&
    (explicit === undefined ? config.NODE_ENV === "development" : explicit === "true");
  return { allowLoopback };
}

export class OutboundRefusal extends Error {
  override name = "OutboundRefusal";
}

/** Why `address` may not be reached under `policy`, or null when it may. */
export function addressRefusal(address: string, policy: OutboundPolicy): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === "unicast") return null;
  if (range === "loopback" && policy.allowLoopback) return null;
  return `${parsed.toString()}, ${RANGE_NAMES[range] ?? `a special-purpose address (${range})`}`;
}

const RANGE_NAMES: Record<string, string> = {
  private: "a private address (RFC 1918)",
  loopback: "a loopback address",
  linkLocal: "a link-local address",
  carrierGradeNat: "a carrier-grade NAT address (100.64.0.0/10)",
  uniqueLocal: "a unique-local address (fc00::/7)",
  unspecified: "the unspecified address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  reserved: "a reserved or documentation address",
  rfc6052: "a NAT64 address (64:ff9b::/96)",
  "6to4": "a 6to4 address (2002::/16)",
  teredo: "a Teredo address (2001::/32)",
};

export interface CheckedUrl {
  url: URL;
  /** The host to resolve (brackets removed from an IPv6 literal). */
  hostname: string;
  addresses: string[];
}

/** Name → addresses (the system resolver unless a test gives another). */
export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map(
    (entry) => entry.address,
  );

/** Checks a webhook URL and every address its host resolves to; throws OutboundRefusal. */
export async function checkWebhookUrl(
  raw: string,
  policy: OutboundPolicy,
  resolve: Resolver = systemResolver,
): Promise<CheckedUrl> {
  const url = parseWebhookUrl(raw, policy);
  const hostname = bareHost(url);
  const addresses = await resolveChecked(hostname, policy, resolve);
  if (url.protocol === "http:" && !addresses.every(isLoopback)) {
    throw new OutboundRefusal("url must be https:// (plain http:// is allowed to loopback only)");
  }
  return { url, hostname, addresses };
}

/** The URL's syntax rules alone (no DNS). */
export function parseWebhookUrl(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefusal("url is not a valid URL");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && policy.allowLoopback)) {
    throw new OutboundRefusal("url must be https://");
  }
  if (url.username || url.password) {
    throw new OutboundRefusal("url must not contain a user name or password");
  }
  if (!url.hostname) throw new OutboundRefusal("url has no host");
  return url;
}

async function resolveChecked(
  hostname: string,
  policy: OutboundPolicy,
  resolve: Resolver,
  loopbackOnly = false,
): Promise<string[]> {
  let addresses: string[];
  if (net.isIP(hostname)) {
    addresses = [hostname];
  } else {
    try {
      addresses = await resolve(hostname);
    } catch {
      throw new OutboundRefusal(`the host ${hostname} does not resolve`);
    }
    if (addresses.length === 0) throw new OutboundRefusal(`the host ${hostname} does not resolve`);
  }
  for (const address of addresses) {
    const refusal =
      loopbackOnly && !isLoopback(address)
        ? `${address}, not a loopback address (plain http:// is allowed to loopback only)`
        : addressRefusal(address, policy);
    if (refusal) {
      throw new OutboundRefusal(
        net.isIP(hostname)
          ? `url may not point at ${refusal}`
          : `url may not point at ${hostname}: it resolves to ${refusal}`,
      );
    }
  }
  return addresses;
}

export function isLoopback(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === "loopback";
}

export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request: resolves the name, refuses it unless every address passes
 * the policy, and hands the socket only those checked addresses (all of them when Node asks
 * for all, for happy eyeballs).
 */
export function guardedLookup(
  policy: OutboundPolicy,
  {
    loopbackOnly = false,
    resolve = systemResolver,
  }: { loopbackOnly?: boolean; resolve?: Resolver | undefined } = {},
) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    resolveChecked(hostname, policy, resolve, loopbackOnly).then(
      (addresses) => {
        const entries = addresses.map((address) => ({ address, family: net.isIP(address) }));
        const wanted =
          options.family === 4 || options.family === 6
            ? entries.filter((entry) => entry.family === options.family)
            : entries;
        if (wanted.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`no address for ${hostname}`);
          error.code = "ENOTFOUND";
          return callback(error, "", 0);
        }
        if (options.all) return callback(null, wanted);
        callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, "", 0),
    );
  };
}
