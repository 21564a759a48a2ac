// The session cookie's seal, read as every signed-in request reads it (sessionIdOf): iron's
// real seals, the unsealing seen through a spy on iron-session's own unsealData. A seal that
// verified is not verified again for a minute at most and never past its own expiry; forged,
// foreign and malformed cookies read as none every time and are never remembered; what is
// remembered is bounded.
import { sealData, unsealData } from "iron-session";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { sessionIdOf, sessionOptions, VERIFIED_SEALS } from "./session-cookie";

vi.hoisted(() => {
  process.env.SESSION_SECRET = "s".repeat(48);
});
vi.mock("iron-session", async (importOriginal) => {
  const actual = await importOriginal<typeof import("iron-session")>();
  return { ...actual, unsealData: vi.fn(actual.unsealData) };
});

const unsealed = vi.mocked(unsealData);
/** A session id of the shape the server issues (43 base64url characters). */
const sid = (n: number) => `${String(n).padStart(43, "A")}`;
const seal = (data: object, ttl = sessionOptions().ttl!, password = sessionOptions().password) =>
  sealData(data, { password, ttl });

let clock = Date.now();
beforeEach(() => {
  unsealed.mockClear();
  clock += 10 * 60_000; // each case on its own minute: nothing carried over
});

describe("the session cookie's seal", () => {
  it("answers the sealed id, and verifies one seal once within a minute", async () => {
    const sealed = await seal({ sid: sid(1) });
    expect(await sessionIdOf(sealed, clock)).toBe(sid(1));
    expect(await sessionIdOf(sealed, clock + 59_000)).toBe(sid(1));
    expect(unsealed).toHaveBeenCalledTimes(1);
    // A minute on, it is verified again.
    expect(await sessionIdOf(sealed, clock + 61_000)).toBe(sid(1));
    expect(unsealed).toHaveBeenCalledTimes(2);
  });

  it("is trusted no longer than the seal itself", async () => {
    const sealed = await seal({ sid: sid(2) }, 30);
    const expiration = Number(sealed.split("~")[0]!.split("*")[5]);
    expect(await sessionIdOf(sealed, expiration - 1_000)).toBe(sid(2));
    expect(unsealed).toHaveBeenCalledTimes(1);
    // Past its expiry it is unsealed again (iron then judges it by the real clock).
    await sessionIdOf(sealed, expiration);
    expect(unsealed).toHaveBeenCalledTimes(2);
  });

  it("reads tampered, foreign and malformed cookies as none, every time, remembering none", async () => {
    const sealed = await seal({ sid: sid(3) });
    const parts = sealed.split("*");
    parts[4] = parts[4]!.slice(0, -2) + (parts[4]!.endsWith("AA") ? "BB" : "AA");
    const cases = [
      parts.join("*"), // its data changed: the HMAC fails
      await seal({ sid: sid(3) }, 3600, "o".repeat(48)), // another server's secret
      await seal({ sid: "short" }), // not an id this server issues
      await seal({ other: 1 }),
      "not a seal",
      `Fe27.2${sealed.slice("Fe26.2".length)}`, // iron-session throws on a wrong prefix
    ];
    for (const cookie of cases) {
      expect(await sessionIdOf(cookie, clock)).toBeUndefined();
      expect(await sessionIdOf(cookie, clock)).toBeUndefined();
    }
    expect(unsealed).toHaveBeenCalledTimes(2 * cases.length);
  });

  it("remembers a seal only as the server writes it: longer spellings verify, each time", async () => {
    // iron-session reads the version up to the next "~" and ignores the rest: one valid seal
    // has endless spellings, which must not fill the memory.
    const sealed = await seal({ sid: sid(5) });
    expect(await sessionIdOf(sealed, clock)).toBe(sid(5));
    for (const longer of [
      `${sealed}${"x".repeat(1_000)}`,
      `${sealed}~junk`,
      `${sealed.slice(0, -1)}02`,
    ]) {
      unsealed.mockClear();
      expect(await sessionIdOf(longer, clock)).toBe(sid(5));
      expect(await sessionIdOf(longer, clock)).toBe(sid(5));
      expect(unsealed).toHaveBeenCalledTimes(2);
    }
  });

  it(`remembers at most ${VERIFIED_SEALS.max} seals, the oldest going first`, async () => {
    const first = await seal({ sid: sid(4) });
    await sessionIdOf(first, clock);
    const sealed = await Promise.all(
      Array.from({ length: VERIFIED_SEALS.max }, (_, i) => seal({ sid: sid(10 + i) })),
    );
    for (const cookie of sealed) await sessionIdOf(cookie, clock);
    unsealed.mockClear();
    expect(await sessionIdOf(sealed.at(-1)!, clock)).toBe(sid(9 + VERIFIED_SEALS.max));
    expect(unsealed).not.toHaveBeenCalled();
    expect(await sessionIdOf(first, clock)).toBe(sid(4));
    expect(unsealed).toHaveBeenCalledTimes(1);
  }, 60_000);
});
