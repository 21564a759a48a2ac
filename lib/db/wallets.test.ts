// ensureWallet: the wallet's row made once, whatever the callers; its Verified flag answered.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { newWallet } from "@/tests/helpers/in-process";
import { ensureWallet } from "./wallets";

describe.each(DB_KINDS)("ensureWallet on %s", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.close());

  it("creates an unknown wallet unverified, once, even when asked many times at once", async () => {
    const { db } = database;
    const address = newWallet().address;
    const answers = await Promise.all(Array.from({ length: 10 }, () => ensureWallet(db, address)));
    expect(answers).toEqual(Array.from({ length: 10 }, () => ({ verified: false })));
    expect(await db.wallet.count({ where: { address } })).toBe(1);
    const row = await db.wallet.findUniqueOrThrow({ where: { address } });
    expect(Math.abs(row.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it("leaves a known wallet as it is and answers its flag", async () => {
    const { db } = database;
    const address = newWallet().address;
    const verifiedAt = new Date("2026-11-01T00:00:00.000Z");
    await db.wallet.create({ data: { address, verified: true, verifiedAt } });
    expect(await ensureWallet(db, address)).toEqual({ verified: true });
    expect(await db.wallet.findUniqueOrThrow({ where: { address } })).toMatchObject({
      verified: true,
      verifiedAt,
    });
  });
});
