// The read cache's rule alone: an answer is served again only while no commit has been noted
// since it was read, and only while the process is told of every commit. (Over HTTP, with
// real writes and two servers: tests/http/read-cache.test.ts.)
import { describe, expect, it } from "vitest";
import type { Db } from "@/lib/db";
import { commitGeneration, informedBySelf, noteCommit } from "@/lib/db/commit-signal";
import { cachedRead } from "./read-cache";

/** The signal and the cache are kept per database object; a fresh object is a fresh database. */
const newDatabaseKey = () => ({}) as Db;

/** An answer as the cache holds them: JSON text. */
const asJson = (value: unknown) => ({ json: JSON.stringify(value) });

function counter() {
  let reads = 0;
  return async () => asJson({ read: ++reads });
}

describe("cachedRead", () => {
  it("reads every time while the process is not told of every commit", async () => {
    const db = newDatabaseKey();
    const read = counter();
    expect(commitGeneration(db)).toBeUndefined();
    expect(await cachedRead(db, "k", read)).toEqual(asJson({ read: 1 }));
    expect(await cachedRead(db, "k", read)).toEqual(asJson({ read: 2 }));
  });

  it("serves the same answer until a commit is noted, then reads again", async () => {
    const db = newDatabaseKey();
    informedBySelf(db);
    const read = counter();
    const first = await cachedRead(db, "k", read);
    expect(await cachedRead(db, "k", read)).toBe(first);
    expect(await cachedRead(db, "other", read)).toEqual(asJson({ read: 2 }));
    noteCommit(db);
    expect(await cachedRead(db, "k", read)).toEqual(asJson({ read: 3 }));
    expect(await cachedRead(db, "k", read)).toEqual(asJson({ read: 3 }));
  });

  it("does not keep an answer whose read overlapped a commit", async () => {
    const db = newDatabaseKey();
    informedBySelf(db);
    let reads = 0;
    const answer = await cachedRead(db, "k", async () => {
      reads += 1;
      noteCommit(db); // a write committed while the read ran: its answer may predate it
      return asJson({ read: reads });
    });
    expect(answer).toEqual(asJson({ read: 1 }));
    expect(await cachedRead(db, "k", async () => asJson({ read: ++reads }))).toEqual(
      asJson({ read: 2 }),
    );
  });

  it("keeps nothing for a read that failed", async () => {
    const db = newDatabaseKey();
    informedBySelf(db);
    await expect(
      cachedRead(db, "k", async () => {
        throw new Error("no such job");
      }),
    ).rejects.toThrow("no such job");
    expect(await cachedRead(db, "k", async () => asJson("found"))).toEqual(asJson("found"));
  });

  it("keeps databases apart", async () => {
    const [a, b] = [newDatabaseKey(), newDatabaseKey()];
    informedBySelf(a);
    informedBySelf(b);
    await cachedRead(a, "k", async () => asJson("a"));
    expect(await cachedRead(b, "k", async () => asJson("b"))).toEqual(asJson("b"));
    noteCommit(b);
    expect(await cachedRead(a, "k", async () => asJson("a again"))).toEqual(asJson("a"));
  });

  it("holds at most 32 MiB of answers' text, two bytes a character: past it, it starts over", async () => {
    const db = newDatabaseKey();
    informedBySelf(db);
    // 1.5 Mi characters: 3 MiB of memory at most.
    const page = (n: number) => async () => ({ n, json: "x".repeat(1.5 * 1024 * 1024) });
    for (let n = 0; n < 10; n++) await cachedRead(db, `page-${n}`, page(n));
    // Ten such pages fit (30 MiB); the eleventh starts a fresh cache.
    // (The answer's n only: a failure would otherwise print 1.5 Mi characters.)
    expect((await cachedRead(db, "page-0", page(100))).n).toBe(0);
    await cachedRead(db, "page-10", page(10));
    expect((await cachedRead(db, "page-0", page(100))).n).toBe(100);
  });
});
