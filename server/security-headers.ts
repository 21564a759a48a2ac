// The browser defences the app server adds to every answer it lets Next.js write:
//   - pages get a strict Content-Security-Policy with a fresh nonce per request: scripts run
//     only when they carry it (Next.js puts it on its own scripts: it reads the nonce from the
//     request's CSP header, which this server always sets itself) or are loaded by one that
//     does ('strict-dynamic'); no plugins, no <base>, no framing, forms post to ourselves, and
//     the page may connect only to ourselves and the chain RPC the wallet reads;
//   - production over https adds HSTS.
import { randomBytes } from "node:crypto";
import type { Env } from "@/lib/platform/config";
import { browserRpcUrls } from "@/lib/payments/chain/browser-rpc";

/** WalletConnect's relay, verify iframe and explorer, when a project id turns it on. */
const WALLETCONNECT = {
  connect: [
    "https://*.walletconnect.com",
    "https://*.walletconnect.org",
    "wss://*.walletconnect.com",
    "wss://*.walletconnect.org",
    "https://*.reown.com",
    "wss://*.reown.com",
  ],
  frame: ["https://verify.walletconnect.com", "https://verify.walletconnect.org"],
  img: ["https://*.walletconnect.com", "https://*.reown.com"],
};

export interface SecurityHeaders {
  /** Headers for a page (HTML or its RSC payload) and the nonce its scripts carry. */
  forPage(): { nonce: string; headers: Record<string, string> };
  /** Headers for every answer (HSTS). */
  always: Record<string, string>;
}

export function securityHeaders(
  config: Pick<Env, "NODE_ENV" | "APP_URL" | "SETTLEMENT_NETWORK" | "CHAIN_RPC_URL">,
  publicEnv: Record<string, string | undefined> = process.env,
): SecurityHeaders {
  const dev = config.NODE_ENV === "development";
  const walletConnect = Boolean(publicEnv.NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID);
  const rpcOrigins = browserRpcUrls(config, publicEnv.NEXT_PUBLIC_CHAIN_RPC_URL).map(
    (url) => new URL(url).origin,
  );
  const https = config.APP_URL?.startsWith("https://") ?? false;
  const list = (...sources: string[]) => [...new Set(sources)].join(" ");
  const policy = (nonce: string) =>
    [
      "default-src 'self'",
      // Development: React's dev tools and the compiler's hot reload evaluate code.
      `script-src 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
      // React and RainbowKit set style attributes and theme variables inline.
      "style-src 'self' 'unsafe-inline'",
      `img-src ${list("'self'", "data:", "blob:", ...(walletConnect ? WALLETCONNECT.img : []))}`,
      "font-src 'self' data:",
      `connect-src ${list(
        "'self'",
        ...rpcOrigins,
        ...(walletConnect ? WALLETCONNECT.connect : []),
        ...(dev ? ["ws:", "wss:"] : []),
      )}`,
      `frame-src ${walletConnect ? list(...WALLETCONNECT.frame) : "'none'"}`,
      "frame-ancestors 'none'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      ...(https ? ["upgrade-insecure-requests"] : []),
    ].join("; ");
  return {
    forPage() {
      const nonce = randomBytes(16).toString("base64");
      return { nonce, headers: { "Content-Security-Policy": policy(nonce) } };
    },
    always:
      config.NODE_ENV === "production" && https
        ? { "Strict-Transport-Security": "max-age=63072000; includeSubDomains" }
        : {},
  };
}

/** Whether a path is a page (HTML or RSC), not the API or a build asset. */
export function isPagePath(pathname: string): boolean {
  return !pathname.startsWith("/api/") && !pathname.startsWith("/_next/");
}
