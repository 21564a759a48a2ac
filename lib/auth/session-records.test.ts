// Server-side sessions on PGlite and PostgreSQL: what makes a session live, what revokes it,
// and what pruning removes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import {
  createSession,
  findActiveSession,
  LAST_SEEN_RESOLUTION_MS,
  pruneExpiredSessions,
  revokeSession,
  revokeWalletSessions,
  SESSION_TTL_SECONDS,
} from "./session-records";

const ALICE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const BOB = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const T0 = new Date("2026-11-23T10:00:00.000Z");
const later = (ms: number) => new Date(T0.getTime() + ms);

describe.each(DB_KINDS)("sessions on %s", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    for (const address of [ALICE, BOB]) await database.db.wallet.create({ data: { address } });
  });
  afterAll(() => database?.close());

  it("creates a checksummed, 7-day session with a 256-bit id and finds it by id", async () => {
    const session = await createSession(database.db, ALICE.toLowerCase() as never, "agent/1", T0);
    expect(session.wallet).toBe(ALICE);
    expect(Buffer.from(session.id, "base64url")).toHaveLength(32);
    const row = await database.db.session.findUniqueOrThrow({ where: { id: session.id } });
    expect(row).toMatchObject({ wallet: ALICE, userAgent: "agent/1", revokedAt: null });
    expect(row.expiresAt.getTime() - T0.getTime()).toBe(SESSION_TTL_SECONDS * 1000);
    expect(await findActiveSession(database.db, session.id, later(1000))).toEqual(session);
    expect(await findActiveSession(database.db, "nope", later(1000))).toBeUndefined();
  });

  it("reads nothing once expired", async () => {
    const session = await createSession(database.db, ALICE, null, T0);
    const end = SESSION_TTL_SECONDS * 1000;
    expect(await findActiveSession(database.db, session.id, later(end - 1))).toBeDefined();
    expect(await findActiveSession(database.db, session.id, later(end))).toBeUndefined();
  });

  it("revokes one session, or every session of one wallet", async () => {
    const one = await createSession(database.db, ALICE, null, T0);
    const two = await createSession(database.db, ALICE, null, T0);
    const bobs = await createSession(database.db, BOB, null, T0);
    await revokeSession(database.db, one.id, later(1));
    expect(await findActiveSession(database.db, one.id, later(2))).toBeUndefined();
    expect(await findActiveSession(database.db, two.id, later(2))).toBeDefined();
    expect(await revokeWalletSessions(database.db, ALICE, later(3))).toBeGreaterThanOrEqual(1);
    expect(await findActiveSession(database.db, two.id, later(4))).toBeUndefined();
    expect(await findActiveSession(database.db, bobs.id, later(4))).toEqual(bobs);
  });

  it("refreshes last seen at most once a minute", async () => {
    const session = await createSession(database.db, BOB, null, T0);
    const lastSeen = async () =>
      (await database.db.session.findUniqueOrThrow({ where: { id: session.id } })).lastSeenAt;
    await findActiveSession(database.db, session.id, later(LAST_SEEN_RESOLUTION_MS));
    expect(await lastSeen()).toEqual(T0);
    await findActiveSession(database.db, session.id, later(LAST_SEEN_RESOLUTION_MS + 1));
    expect(await lastSeen()).toEqual(later(LAST_SEEN_RESOLUTION_MS + 1));
  });

  it("prunes expired rows (revoked or not) and keeps live ones", async () => {
    const old = await createSession(database.db, BOB, null, later(-SESSION_TTL_SECONDS * 1000 - 1));
    const live = await createSession(database.db, BOB, null, T0);
    expect(await pruneExpiredSessions(database.db, T0)).toBeGreaterThanOrEqual(1);
    expect(await database.db.session.findUnique({ where: { id: old.id } })).toBeNull();
    expect(await database.db.session.findUnique({ where: { id: live.id } })).not.toBeNull();
  });
});
