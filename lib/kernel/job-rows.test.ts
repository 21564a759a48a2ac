// The job views PostgreSQL writes as JSON (job-rows.ts) are byte for byte what toJobView and
// JSON.stringify write from the same rows, on PGlite and PostgreSQL: text that needs escaping,
// the smallest and largest budgets, null and set instants, a verified poster, every state, the
// attachments of a delivered and a cancelled job (in their order) and a completed job without
// any, an address stored in lower case (checksummed on the way out) and one in a case no writer
// stores (taken as written by both).
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { miscasedAddress, newWallet } from "@/tests/helpers/in-process";
import { seededRandom } from "@/tools/seeded-random";
import {
  checksumPosterAddresses,
  selectJobJson,
  newestJobsSql,
  selectNewestJobJson,
  selectSortedJobJson,
} from "./job-rows";
import { jobInclude, toJobView } from "./serialize";

const AWKWARD = 'quotes " and \\ backslash, \n newline, \t tab, \u0001 control, é, 😀, </script>';

describe.each(DB_KINDS)("job views as JSON on %s", (kind) => {
  let database: TestDatabase;
  const ids: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const { db } = database;
    const verified = newWallet().address;
    const plain = newWallet().address;
    await db.wallet.create({ data: { address: verified, verified: true } });
    await db.wallet.create({ data: { address: plain } });
    await db.wallet.create({ data: { address: plain.toLowerCase() } });
    // Upper case where EIP-55 would not have it all: no writer stores it, and the Node view
    // and the JSON page both take it as written (serialize.ts's checksumStoredAddress).
    const miscased = miscasedAddress(plain);
    await db.wallet.create({ data: { address: miscased } });
    const jobs = [
      { budgetAtomic: 1n, posterAddress: verified, title: AWKWARD, requirements: [AWKWARD, ""] },
      { budgetAtomic: 1_000_000_000_000_000n, posterAddress: plain, requirements: [] },
      { budgetAtomic: 12_500_000n, posterAddress: plain.toLowerCase(), requirements: ["a"] },
      { budgetAtomic: 999_999_999_999_999n, posterAddress: plain, requirements: ["b"] },
      { budgetAtomic: 5_000_000n, posterAddress: miscased, requirements: [] },
    ];
    // Every state; a job has attachments only once delivered (lifecycle.ts's BEFORE_DELIVERY).
    const statuses = ["delivered", "completed", "open", "cancelled", "in_progress"] as const;
    for (const [index, job] of jobs.entries()) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, index, 7 * index));
      const status = statuses[index]!;
      const delivered = !["open", "in_progress"].includes(status);
      const row = await db.job.create({
        data: {
          id: `job_rows_${index}`,
          title: "A job",
          description: index === 0 ? AWKWARD : "plain",
          category: "data",
          timelineDays: 3,
          handle: "@h",
          status,
          createdAt: at,
          updatedAt: at,
          deliveredAt: delivered ? at : null,
          completedAt: status === "completed" ? new Date(at.getTime() + 1) : null,
          ...job,
        },
      });
      ids.push(row.id);
    }
    const attachments = [
      [ids[0]!, "second.txt"],
      [ids[0]!, "first.txt"],
      [ids[0]!, AWKWARD],
      [ids[3]!, "cancelled.txt"],
    ] as const;
    for (const [index, [jobId, name]] of attachments.entries()) {
      await db.attachment.create({
        data: {
          id: `att_${index}`,
          jobId,
          name,
          size: 10 + index,
          type: "text/plain",
          data: Buffer.from("x"),
          createdAt: new Date(Date.UTC(2026, 0, 2, 0, 0, index === 1 ? 0 : index)),
        },
      });
    }
  });
  afterAll(() => database?.close());

  const expected = async (id: string) =>
    JSON.stringify(
      toJobView(await database.db.job.findUniqueOrThrow({ where: { id }, include: jobInclude })),
    );

  it("writes one job as toJobView and JSON.stringify do", async () => {
    for (const id of ids) expect(await selectJobJson(database.db, id)).toBe(await expected(id));
    expect(await selectJobJson(database.db, "job_none")).toBeUndefined();
  });

  it("writes a page newest first, with each row's key", async () => {
    const rows = await selectNewestJobJson(database.db, newestJobsSql([], 10));
    expect(rows.map((row) => row.id)).toEqual([...ids].reverse());
    for (const row of rows) {
      expect(checksumPosterAddresses(row.json)).toBe(await expected(row.id));
      const view = JSON.parse(row.json) as { createdAt: string };
      expect(row.createdAt).toBe(view.createdAt);
    }
  });

  it("writes a sorted id page's jobs in its order, with its sort values", async () => {
    const idPage = Prisma.sql`SELECT "id", "createdAt", "budgetAtomic" AS "sortValue"
      FROM "jobs" ORDER BY 3 DESC, "createdAt" DESC, "id" DESC LIMIT 3`;
    const rows = await selectSortedJobJson(database.db, idPage, true);
    expect(rows.map((row) => row.id)).toEqual([ids[1], ids[3], ids[2]]);
    expect(rows.map((row) => BigInt(row.sortValue!))).toEqual([
      1_000_000_000_000_000n,
      999_999_999_999_999n,
      12_500_000n,
    ]);
  });
});

describe("checksumPosterAddresses", () => {
  const lower = newWallet().address.toLowerCase();
  const other = newWallet().address.toLowerCase();
  const job = (address: string, title = "t") =>
    JSON.stringify({ title, posterAddress: address, attachments: [] });
  const miscased = miscasedAddress(lower);

  it("checksums every poster's address of a page and leaves the rest byte for byte", () => {
    const page = `[${job(lower)},${job(other, "x")},${job(lower)}]`;
    expect(checksumPosterAddresses(page)).toBe(
      `[${job(getAddress(lower))},${job(getAddress(other), "x")},${job(getAddress(lower))}]`,
    );
  });

  it("leaves the key's spelling inside a string, and what is not an address, as it was", () => {
    const inTitle = job(lower, `"posterAddress":"${other}"`);
    expect(checksumPosterAddresses(inTitle)).toBe(
      job(getAddress(lower), `"posterAddress":"${other}"`),
    );
    for (const text of [
      job(`${lower}0`),
      job(lower.slice(0, 41)),
      job(`0x${"g".repeat(40)}`),
      `{"posterAddress":"${lower}`,
      "",
    ]) {
      expect(checksumPosterAddresses(text)).toBe(text);
    }
  });

  it("leaves an address with an upper-case letter as written, the EIP-55 form writers store", () => {
    const checksummed = getAddress(other);
    const page = `[${job(checksummed)},${job(lower)}]`;
    expect(checksumPosterAddresses(page)).toBe(`[${job(checksummed)},${job(getAddress(lower))}]`);
    // Taken as written, not checked: an address the app never stores.
    expect(checksumPosterAddresses(job(miscased))).toBe(job(miscased));
  });

  it("rewrites exactly what the regular expression it replaced would, on odd compositions", () => {
    const reference = (json: string) =>
      json.replace(/"posterAddress":"(0x[0-9a-fA-F]{40})"/g, (match, address: string) =>
        /[A-F]/.test(address) ? match : `"posterAddress":"${getAddress(address)}"`,
      );
    const pieces = [
      '"posterAddress":"',
      "0x",
      "ab",
      "AB",
      "0",
      "g",
      '"',
      "\\",
      lower,
      getAddress(lower),
      miscased,
      `0x${"a".repeat(40)}`,
      `"posterAddress":"${other}"`,
    ];
    // A fixed sequence of compositions every run (of this run's random addresses).
    const random = seededRandom(27);
    const next = (below: number) => Math.floor(random() * below);
    let rewritten = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      for (let count = next(12); count > 0; count--) text += pieces[next(pieces.length)];
      expect(checksumPosterAddresses(text)).toBe(reference(text));
      if (reference(text) !== text) rewritten += 1;
    }
    // Most texts hold no whole key and address; enough do for the comparison to mean something.
    expect(rewritten).toBeGreaterThan(1_000);
  });
});
