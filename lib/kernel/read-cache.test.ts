// The read cache's rule alone: an answer is served again only while no commit has been noted
// since it was read, and only while the process is told of every commit. (Over HTTP, with
// real writes and two servers: tests/http/read-cache.test.ts.)
import { afterEach, describe, expect, it, vi } from "vitest";
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
  afterEach(() => vi.restoreAllMocks());

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

  it("holds at most 32 MiB of answers' text, two bytes a character: past it, the least recently used go", async () => {
    const db = newDatabaseKey();
    informedBySelf(db);
    // 1.5 Mi characters: 3 MiB of memory at most.
    const page = (n: number) => async () => ({ n, json: "x".repeat(1.5 * 1024 * 1024) });
    for (let n = 0; n < 10; n++) await cachedRead(db, `page-${n}`, page(n));
    // Ten such pages fit (30 MiB). (Each answer's n compared alone: a failure would otherwise
    // print 1.5 Mi characters.)
    expect((await cachedRead(db, "page-0", page(100))).n).toBe(0);
    // The eleventh pushes out the least recently used: page-1 (page-0 was just read).
    await cachedRead(db, "page-10", page(10));
    expect((await cachedRead(db, "page-0", page(100))).n).toBe(0);
    expect((await cachedRead(db, "page-2", page(102))).n).toBe(2);
    expect((await cachedRead(db, "page-1", page(101))).n).toBe(101);
  });

  it("takes an expired answer's place and size out when it reads it again", async () => {
    const db = newDatabaseKey();
    informedBySelf(db);
    const start = Date.now();
    const now = vi.spyOn(Date, "now").mockReturnValue(start);
    const page = (n: number) => async () => ({ n, json: "x".repeat(1.5 * 1024 * 1024) });
    await cachedRead(db, "page-9", page(9));
    // An hour on (READ_CACHE_SECONDS is at most 3,600): page-9 has expired; nine more fit.
    now.mockReturnValue(start + 3_601_000);
    for (let n = 0; n < 9; n++) await cachedRead(db, `page-${n}`, page(n));
    // Read again: the new answer replaces the old one, in place and in size (27 + 3 MiB).
    expect((await cachedRead(db, "page-9", page(109))).n).toBe(109);
    expect((await cachedRead(db, "page-0", page(100))).n).toBe(0);
    // And it is now the most recently used: the next pages push out page-1 and page-2 first.
    await cachedRead(db, "page-10", page(10));
    await cachedRead(db, "page-11", page(11));
    expect((await cachedRead(db, "page-9", page(209))).n).toBe(109);
    expect((await cachedRead(db, "page-3", page(103))).n).toBe(3);
  });

  it("holds at most 200 answers: the one many ask for stays while distinct ones churn", async () => {
    const db = newDatabaseKey();
    informedBySelf(db);
    let hotReads = 0;
    const hot = async () => asJson({ hot: ++hotReads });
    await cachedRead(db, "hot", hot);
    for (let n = 0; n < 1_000; n++) {
      await cachedRead(db, `distinct-${n}`, async () => asJson({ n }));
      if (n % 50 === 0) await cachedRead(db, "hot", hot);
    }
    expect(hotReads).toBe(1);
    // Beside it, the latest 199 distinct ones: 801 to 999.
    const readAgain = async (key: string) => {
      let read = false;
      await cachedRead(db, key, async () => ((read = true), asJson({ again: key })));
      return read;
    };
    expect(await readAgain("distinct-999")).toBe(false);
    expect(await readAgain("distinct-801")).toBe(false);
    expect(await readAgain("distinct-800")).toBe(true);
  });
});
