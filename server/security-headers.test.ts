import { describe, expect, it } from "vitest";
import { isPagePath, securityHeaders } from "./security-headers";

const base = {
  NODE_ENV: "production",
  APP_URL: "https://market.example",
  SETTLEMENT_NETWORK: "base",
  CHAIN_RPC_URL: undefined,
} as const;

describe("security headers", () => {
  it("give each page its own nonce in a strict script policy", () => {
    const headers = securityHeaders(base, {});
    const one = headers.forPage();
    const two = headers.forPage();
    expect(one.nonce).not.toBe(two.nonce);
    const policy = one.headers["Content-Security-Policy"]!;
    expect(policy).toContain(`script-src 'nonce-${one.nonce}' 'strict-dynamic';`);
    expect(policy).not.toContain("unsafe-eval");
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain("base-uri 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("connect-src 'self' https://mainnet.base.org;");
    expect(policy).toContain("upgrade-insecure-requests");
    expect(headers.always).toEqual({
      "Strict-Transport-Security": "max-age=63072000; includeSubDomains",
    });
  });

  it("allow the local chain's RPC (and the browser's own address for it), no HSTS over http", () => {
    const headers = securityHeaders(
      {
        ...base,
        APP_URL: "http://127.0.0.1:3000",
        SETTLEMENT_NETWORK: "local",
        CHAIN_RPC_URL: "http://127.0.0.1:9545",
      },
      { NEXT_PUBLIC_CHAIN_RPC_URL: "http://chain.test:8545/rpc" },
    );
    const policy = headers.forPage().headers["Content-Security-Policy"]!;
    expect(policy).toContain("connect-src 'self' http://127.0.0.1:9545 http://chain.test:8545;");
    expect(policy).not.toContain("upgrade-insecure-requests");
    expect(headers.always).toEqual({});
  });

  it("let development evaluate code and open its hot-reload socket, and WalletConnect in when configured", () => {
    const policy = securityHeaders(
      { ...base, NODE_ENV: "development", APP_URL: undefined },
      { NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID: "abc" },
    ).forPage().headers["Content-Security-Policy"]!;
    expect(policy).toContain("'unsafe-eval'");
    expect(policy).toContain("ws:");
    expect(policy).toContain("wss://*.walletconnect.org");
    expect(policy).toContain("frame-src https://verify.walletconnect.com");
  });

  it("apply to pages, not to the API or build assets", () => {
    expect(isPagePath("/")).toBe(true);
    expect(isPagePath("/jobs/job_1")).toBe(true);
    expect(isPagePath("/api/v1/jobs")).toBe(false);
    expect(isPagePath("/_next/static/chunks/a.js")).toBe(false);
  });
});
