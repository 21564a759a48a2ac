// Access tokens on PGlite and PostgreSQL: what is stored (a hash, never the secret), what
// makes a token live, what revokes it, and whose tokens a wallet sees.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "@/lib/platform/errors";
import { createTokenSchema } from "@/lib/shared/schemas/tokens";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import {
  checkToken,
  createAccessToken,
  hashToken,
  listAccessTokens,
  revokeAccessToken,
} from "./access-tokens";

const ALICE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const BOB = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const T0 = new Date("2026-11-24T10:00:00.000Z");
const DAY = 24 * 60 * 60 * 1000;
const later = (ms: number) => new Date(T0.getTime() + ms);
const input = (fields: Record<string, unknown> = {}) =>
  createTokenSchema.parse({ name: "bot", scopes: ["read", "bid"], ...fields });

describe.each(DB_KINDS)("access tokens on %s", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.close());

  it("returns a 256-bit amk_ secret once and stores only its SHA-256", async () => {
    const token = await createAccessToken(database.db, ALICE.toLowerCase() as never, input(), T0);
    expect(token.token).toMatch(/^amk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.token.slice(4), "base64url")).toHaveLength(32);
    expect(token).toMatchObject({
      name: "bot",
      scopes: ["read", "bid"],
      status: "active",
      hint: `amk_…${token.token.slice(-4)}`,
      expiresAt: later(30 * DAY).toISOString(),
      lastUsedAt: null,
    });
    const row = await database.db.accessToken.findUniqueOrThrow({ where: { id: token.id } });
    expect(row.wallet).toBe(ALICE);
    expect(row.tokenHash).toBe(createHash("sha256").update(token.token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(token.token.slice(4));
  });

  it("signs in as its wallet with its scopes until it expires", async () => {
    const token = await createAccessToken(database.db, ALICE, input({ expiresInDays: 1 }), T0);
    expect(await checkToken(database.db, token.token, later(DAY - 1))).toEqual({
      status: "active",
      credential: { tokenId: token.id, wallet: ALICE, scopes: ["read", "bid"] },
    });
    expect(await checkToken(database.db, token.token, later(DAY))).toEqual({ status: "expired" });
  });

  it("reads unknown and malformed secrets as unknown", async () => {
    const token = await createAccessToken(database.db, ALICE, input(), T0);
    const flipped = token.token.slice(0, -1) + (token.token.endsWith("A") ? "B" : "A");
    for (const secret of [
      flipped,
      "",
      "amk_",
      "amk_short",
      token.token.slice(4),
      `${token.token} `,
    ]) {
      expect(await checkToken(database.db, secret, later(1))).toEqual({ status: "unknown" });
    }
    expect(hashToken(token.token)).not.toBe(hashToken(flipped));
  });

  it("revokes a token of the wallet's own, idempotently, and no other wallet's", async () => {
    const token = await createAccessToken(database.db, ALICE, input(), T0);
    const refusal = await revokeAccessToken(database.db, BOB, token.id, later(1)).catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(DomainError);
    expect((refusal as DomainError).status).toBe(404);
    expect((await checkToken(database.db, token.token, later(2))).status).toBe("active");

    const revoked = await revokeAccessToken(database.db, ALICE, token.id, later(3));
    expect(revoked).toMatchObject({ status: "revoked", revokedAt: later(3).toISOString() });
    expect(await checkToken(database.db, token.token, later(4))).toEqual({ status: "revoked" });
    expect(await revokeAccessToken(database.db, ALICE, token.id, later(5))).toEqual(revoked);
  });

  it("lists a wallet's own tokens newest first, without secrets, in pages", async () => {
    const carol = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await createAccessToken(database.db, carol, input({ name: `t${i}` }), later(i)));
    }
    const first = await listAccessTokens(database.db, carol, { limit: 2 }, later(10));
    expect(first.items.map((token) => token.name)).toEqual(["t2", "t1"]);
    const second = await listAccessTokens(
      database.db,
      carol,
      { limit: 2, cursor: first.nextCursor! },
      later(10),
    );
    expect(second).toEqual({ items: [expect.objectContaining({ name: "t0" })], nextCursor: null });
    const listed = JSON.stringify([...first.items, ...second.items]);
    for (const token of made) expect(listed).not.toContain(token.token);
    expect(listed).not.toContain('"token"');
  });

  it("records when a token was last used, at most once a minute", async () => {
    const token = await createAccessToken(database.db, BOB, input(), T0);
    const lastUsed = async () =>
      (await database.db.accessToken.findUniqueOrThrow({ where: { id: token.id } })).lastUsedAt;
    await checkToken(database.db, token.token, later(1000));
    expect(await lastUsed()).toEqual(later(1000));
    await checkToken(database.db, token.token, later(30_000));
    expect(await lastUsed()).toEqual(later(1000));
    await checkToken(database.db, token.token, later(62_000));
    expect(await lastUsed()).toEqual(later(62_000));
  });
});

describe("the create schema", () => {
  it.each([
    [{ scopes: [] }, "scopes must name at least one scope"],
    [{ scopes: ["admin"] }, "each scope must be one of: read, post, bid, deliver, review"],
    [{ scopes: ["read", "read"] }, "scopes must not repeat"],
    [{ expiresInDays: 0 }, "expiresInDays must be from 1 to 365"],
    [{ expiresInDays: 366 }, "expiresInDays must be from 1 to 365"],
    [{ expiresInDays: 1.5 }, "expiresInDays must be a whole number of days"],
    [{ name: " " }, "name must not be empty"],
  ])("refuses %j", (fields, message) => {
    const result = createTokenSchema.safeParse({ name: "bot", scopes: ["read"], ...fields });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(message);
  });
});
