// SIWE sign-in's nonce rules on PGlite and PostgreSQL: one message is signed correctly every
// time, and only the nonce's state differs, so each refusal is the nonce rule it names.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "@/lib/platform/errors";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { issueNonce, NONCE_TTL_MS, verifySiwe } from "./siwe";

const DOMAIN = "market.example";
const NONCE_REFUSED =
  "sign-in refused: the nonce is unknown, expired or already used; get a new one";

describe.each(DB_KINDS)("SIWE nonces on %s", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.close());

  async function signed(nonce: string) {
    const account = privateKeyToAccount(generatePrivateKey());
    const message = createSiweMessage({
      domain: DOMAIN,
      address: account.address,
      uri: `https://${DOMAIN}`,
      version: "1",
      chainId: 1,
      nonce,
      issuedAt: new Date(),
    });
    return { account, message, signature: await account.signMessage({ message }) };
  }
  const verify = (input: { message: string; signature: string }) =>
    verifySiwe(database.db, { ...input, allowedDomains: [DOMAIN] });

  async function refusal(promise: Promise<unknown>) {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${error}`);
    return { status: error.status, message: error.message };
  }

  it("signs in with a fresh nonce once; the nonce is then burned", async () => {
    const nonce = await issueNonce(database.db);
    const row = await database.db.siweNonce.findUniqueOrThrow({ where: { nonce } });
    expect(row.expiresAt.getTime() - Date.now()).toBeGreaterThan(NONCE_TTL_MS - 60_000);
    const input = await signed(nonce);
    expect(await verify(input)).toBe(input.account.address);
    expect(await refusal(verify(input))).toEqual({ status: 401, message: NONCE_REFUSED });
  });

  it("refuses a nonce past its expiry, unused and correctly signed (401)", async () => {
    const nonce = await issueNonce(database.db);
    await database.db.siweNonce.update({
      where: { nonce },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    expect(await refusal(verify(await signed(nonce)))).toEqual({
      status: 401,
      message: NONCE_REFUSED,
    });
    // Refused for its expiry: the row is still unused.
    expect(await database.db.siweNonce.findUniqueOrThrow({ where: { nonce } })).toMatchObject({
      usedAt: null,
    });
  });

  it("refuses a nonce the server never issued (401)", async () => {
    expect(await refusal(verify(await signed("a".repeat(32))))).toEqual({
      status: 401,
      message: NONCE_REFUSED,
    });
  });
});
