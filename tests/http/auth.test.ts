// Sign-in with Ethereum (EIP-4361) and the session cookie: nonces, verify, session, logout.
// Part of the HTTP contract against the production app server and a real database (PGlite,
// and PostgreSQL when TEST_DATABASE_URL is set), with real SIWE signatures from viem
// accounts; the cast is tests/helpers/contract.ts.
import { sealData } from "iron-session";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { ApiClient } from "@/tests/helpers/api";
import { useContractCast, validJob } from "@/tests/helpers/contract";
import { DB_KINDS } from "@/tests/helpers/db";
import { TEST_SESSION_SECRET } from "@/tests/helpers/server";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

describe.each(DB_KINDS)("marketplace API over HTTP on %s", (kind) => {
  const cast = useContractCast(kind);

  describe("sign-in (SIWE)", () => {
    it("issues single-use random nonces", async () => {
      const a = await cast.anon.get("/api/auth/nonce");
      const b = await cast.anon.get("/api/auth/nonce");
      expect(a.status).toBe(200);
      expect(a.body.data.nonce).toMatch(/^[0-9a-f]{32}$/);
      expect(a.body.data.nonce).not.toBe(b.body.data.nonce);
    });

    it("verifies a signed message and sets the session cookie", async () => {
      const client = cast.newClient();
      const response = await client.post("/api/auth/verify", await client.siweMessage());
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: { address: client.account!.address } });
      const cookie = response.headers.get("set-cookie")!;
      expect(cookie).toMatch(/^marketplace_session=[^;]+;/);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).toMatch(/Secure/i);
      const maxAge = Number(/Max-Age=(\d+)/i.exec(cookie)?.[1]);
      expect(maxAge).toBeGreaterThan(7 * 24 * 3600 - 120);
      expect(maxAge).toBeLessThanOrEqual(7 * 24 * 3600);
      expect((await client.get("/api/auth/session")).body).toEqual({
        data: { address: client.account!.address },
      });
    });

    it("refuses a message whose address is not EIP-55 checksummed, as EIP-4361 requires (400)", async () => {
      const client = cast.newClient();
      const { message } = await client.siweMessage();
      const lowered = message.replace(
        client.account!.address,
        client.account!.address.toLowerCase(),
      );
      expect(lowered).not.toBe(message);
      const signature = await client.account!.signMessage({ message: lowered });
      const response = await client.post("/api/auth/verify", { message: lowered, signature });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe(
        "message is not a valid EIP-4361 (SIWE) message: line 2: invalid EIP-55 address - " +
          client.account!.address.toLowerCase(),
      );
      expect(response.headers.get("set-cookie")).toBeNull();
    });

    it("returns checksummed addresses for addresses sent in lowercase", async () => {
      const payeeClient = await cast.newClient().signIn();
      const payee = payeeClient.account!.address;
      const agent = await cast.stranger.post("/api/v1/agents", {
        name: "Lower",
        categories: ["seo"],
        walletAddress: payee.toLowerCase(),
      });
      // The named wallet is the payee once it agrees.
      expect(agent.body.data).toMatchObject({
        walletAddress: null,
        payeeConsentPending: true,
        operatorAddress: cast.stranger.account!.address,
      });
      expect(await payeeClient.consentAsPayee(agent.body.data.id)).toMatchObject({
        walletAddress: payee,
        payeeConsentPending: false,
      });
      expect(
        (await cast.anon.get(`/api/v1/agents/${agent.body.data.id}`)).body.data.walletAddress,
      ).toBe(payee);
      const faucet = await cast.anon.post("/api/dev/faucet", {
        address: payee.toLowerCase(),
        amountUsdc: 1,
      });
      expect(faucet.status).toBe(200);
    });

    it.each([
      ["a nonce used twice", "reuse"],
      ["an unknown nonce", "unknown"],
      ["another domain", "domain"],
      ["an expired message", "expired"],
      ["a message not valid yet", "notBefore"],
      ["a signature by another wallet", "signer"],
    ])("refuses %s with 401", async (_label, kind) => {
      const client = cast.newClient();
      let signed: { message: string; signature: string };
      if (kind === "unknown") signed = await client.siweMessage({ nonce: "a".repeat(32) });
      else if (kind === "domain") signed = await client.siweMessage({ domain: "evil.example" });
      else if (kind === "expired")
        signed = await client.siweMessage({ expirationTime: new Date(Date.now() - 60_000) });
      else if (kind === "notBefore")
        signed = await client.siweMessage({ notBefore: new Date(Date.now() + 3_600_000) });
      else signed = await client.siweMessage();
      if (kind === "signer") {
        signed.signature = await privateKeyToAccount(generatePrivateKey()).signMessage({
          message: signed.message,
        });
      }
      if (kind === "reuse")
        expect((await client.post("/api/auth/verify", signed)).status).toBe(200);
      const response = await cast.newClient().post("/api/auth/verify", signed);
      expect(response.status).toBe(401);
      expect(typeof response.body.error).toBe("string");
      expect(response.headers.get("set-cookie")).toBeNull();
    });

    it.each([
      ["no body", undefined],
      ["a missing signature", { message: "hello" }],
      ["a non-hex signature", { message: "hello", signature: "zz" }],
      ["a message that is not EIP-4361", { message: "hello", signature: "0x1234" }],
    ])("answers 400 for %s", async (_label, body) => {
      const response = await cast.anon.post("/api/auth/verify", body);
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe("string");
    });

    it("answers 401 for no, tampered, foreign and unknown session cookies", async () => {
      expect((await cast.anon.get("/api/auth/session")).status).toBe(401);
      const tampered = new ApiClient(cast.server.url);
      tampered.cookie = `${cast.poster.cookie!.slice(0, -4)}AAAA`;
      expect((await tampered.get("/api/auth/session")).status).toBe(401);
      // The cookie carries only a sealed session id: sealed with another secret, or naming
      // a session the server never issued, or in the old address-carrying shape, it is none.
      const sealed = async (data: object, password = TEST_SESSION_SECRET) => {
        const client = new ApiClient(cast.server.url);
        client.cookie = `marketplace_session=${await sealData(data, { password })}`;
        return client;
      };
      const foreign = await sealed({ sid: "x".repeat(43) }, "x".repeat(40));
      expect((await foreign.get("/api/auth/session")).status).toBe(401);
      const unknown = await sealed({ sid: "x".repeat(43) });
      expect((await unknown.get("/api/auth/session")).status).toBe(401);
      expect((await unknown.post("/api/v1/jobs", validJob)).status).toBe(401);
      const oldShape = await sealed({
        address: cast.poster.account!.address,
        expiresAt: Date.now() + 60_000,
      });
      expect((await oldShape.get("/api/auth/session")).status).toBe(401);
      expect((await oldShape.post("/api/v1/jobs", validJob)).status).toBe(401);
      // The real cookie is accepted: the 401s above are the seal and the session row.
      expect((await cast.poster.get("/api/auth/session")).status).toBe(200);
    });

    it("logs out and clears the cookie", async () => {
      const client = await cast.newClient().signIn();
      const response = await client.post("/api/auth/logout");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: { ok: true } });
      expect(response.headers.get("set-cookie")).toMatch(/marketplace_session=;/);
      expect((await client.get("/api/auth/session")).status).toBe(401);
      expect((await cast.anon.post("/api/auth/logout")).status).toBe(200);
    });
  });
});
