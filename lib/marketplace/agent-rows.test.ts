// The agent views PostgreSQL writes as JSON (agent-rows.ts) are byte for byte what toAgentView
// and JSON.stringify write from the same row and the same reputation (read as before, through
// agentReputationSql), on PGlite and PostgreSQL: text that needs escaping, categories, a
// pending payee, addresses stored in lower case and in a case no writer stores, reputation from
// payments (reviews that count and some that do not, a payment below the minimum, one by the
// operator, one in progress), a total beyond a double's 15 digits, and every rating a count of
// up to 60 reviews can make.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client";
import { type AgentStats, toAgentView } from "@/lib/kernel/serialize";
import { listAgentsQuerySchema } from "@/lib/shared/schemas/agents";
import { createTestDatabase, DB_KINDS, type TestDatabase } from "@/tests/helpers/db";
import { miscasedAddress, newWallet, seedPaidJob } from "@/tests/helpers/in-process";
import {
  finishAgentJson,
  ratingSql,
  selectAgentJson,
  selectNewestAgentJson,
  selectSortedAgentJson,
} from "./agent-rows";
import { searchAgentIdsSql } from "./agent-search";
import { agentReputationSql } from "@/lib/kernel/reputation";

const AWKWARD = 'quotes " and \\ backslash, \n newline, \t tab, \u0001 control, é, 😀, </script>';
const USDC = 1_000_000n;

describe.each(DB_KINDS)("agent views as JSON on %s", (kind) => {
  let database: TestDatabase;
  const ids: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const { db } = database;
    const operator = newWallet().address;
    const payee = newWallet().address;
    const agents = [
      {
        name: AWKWARD,
        description: AWKWARD,
        categories: ["data", "research"] as const,
        walletAddress: payee,
        operatorAddress: operator,
      },
      {
        // Named a payee that has not agreed: paid nowhere yet.
        walletAddress: null,
        pendingWalletAddress: newWallet().address,
        operatorAddress: operator.toLowerCase(),
        categories: [] as const,
      },
      {
        walletAddress: payee.toLowerCase(),
        operatorAddress: operator,
        categories: ["engineering"] as const,
      },
      { walletAddress: operator, operatorAddress: operator, categories: ["seo"] as const },
      // A case no writer stores: the Node view and the JSON page both take it as written.
      {
        walletAddress: miscasedAddress(payee),
        operatorAddress: miscasedAddress(operator),
        categories: [] as const,
      },
    ];
    for (const [index, agent] of agents.entries()) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, index, 7 * index));
      const row = await db.agent.create({
        data: {
          id: `agent_rows_${index}`,
          name: "Agent",
          description: "plain",
          createdAt: at,
          ...agent,
          categories: [...agent.categories],
        },
      });
      ids.push(row.id);
    }
    const paid = async (
      agentId: string,
      amountAtomic: bigint,
      rating: number | undefined,
      status: "in_progress" | "completed" = "completed",
      payer?: `0x${string}`,
    ) => {
      const poster = newWallet().address;
      const jobId = await seedPaidJob(db, {
        posterAddress: poster,
        agentId,
        amountAtomic,
        status,
        ...(payer ? { payer } : {}),
      });
      if (rating !== undefined) {
        await db.review.create({
          data: {
            id: `rev_${jobId}`,
            agentId,
            jobId,
            reviewerAddress: poster.toLowerCase(),
            rating,
            comment: "ok",
          },
        });
      }
    };
    // Agent 0: 5, 4, 4 that count (4.33), paid by three posters and one more in progress;
    // a payment below the minimum and one by the operator count for nothing.
    for (const rating of [5, 4, 4]) await paid(ids[0]!, 12_500_000n, rating);
    await paid(ids[0]!, 3n * USDC, undefined, "in_progress");
    await paid(ids[0]!, 999_999n, 1);
    await paid(ids[0]!, 50n * USDC, 1, "completed", operator);
    // Agent 2: 5, 5, 4 (4.67), and a total of 19 significant digits.
    await paid(ids[2]!, 1_234_567_890_123_456_789n, 5);
    await paid(ids[2]!, 1n * USDC, 5);
    await paid(ids[2]!, 2n * USDC, 4);
  });
  afterAll(() => database?.close());

  /** What getAgent answered before: the row, its reputation read apart, toAgentView. */
  const expected = async (id: string) => {
    const { db } = database;
    const row = await db.agent.findUniqueOrThrow({ where: { id } });
    const [stats] = await db.$queryRaw<AgentStats[]>`
      SELECT * FROM ${agentReputationSql([id])} stats`;
    const none = { ratingSum: 0, reviewCount: 0, completedJobs: 0, payers: 0, paidAtomic: 0n };
    return JSON.stringify(toAgentView(row, stats ?? none));
  };

  it("writes one agent as toAgentView and JSON.stringify do", async () => {
    for (const id of ids) expect(await selectAgentJson(database.db, id)).toBe(await expected(id));
    expect(await selectAgentJson(database.db, "agent_none")).toBeUndefined();
    // The cases the test means to cover are there.
    const views = await Promise.all(
      ids.map(async (id) => JSON.parse((await selectAgentJson(database.db, id))!) as unknown),
    );
    expect(views[0]).toMatchObject({ rating: 4.33, reviewCount: 3, paidByPosters: 4 });
    expect(views[1]).toMatchObject({ walletAddress: null, payeeConsentPending: true });
    const total = Number("1234567890126.456789");
    expect(views[2]).toMatchObject({ rating: 4.67, totalPaidUsdc: total });
    expect(views[3]).toMatchObject({ rating: 0, totalPaidUsdc: 0, categories: ["seo"] });
  });

  it("writes a page newest first, with each row's key", async () => {
    const rows = await selectNewestAgentJson(database.db, [], 10);
    expect(rows.map((row) => row.id)).toEqual([...ids].reverse());
    for (const row of rows) {
      expect(finishAgentJson(row.json)).toBe(await expected(row.id));
      expect(row.createdAt).toBe((JSON.parse(row.json) as { createdAt: string }).createdAt);
    }
    const filtered = await selectNewestAgentJson(
      database.db,
      [Prisma.sql`${"engineering"}::"Category" = ANY("categories")`],
      10,
    );
    expect(filtered.map((row) => row.id)).toEqual([ids[2]]);
  });

  it("writes a sorted id page's agents in its order, with its sort values", async () => {
    const query = listAgentsQuerySchema.parse({ sort: "rating", limit: 3 });
    const rows = await selectSortedAgentJson(database.db, searchAgentIdsSql(query, "rating"), true);
    expect(rows.map((row) => row.id)).toEqual([ids[2], ids[0], ids[4], ids[3]]);
    expect(rows.map((row) => Number(row.sortValue))).toEqual([14 / 3, 13 / 3, 0, 0]);
    for (const row of rows) expect(finishAgentJson(row.json)).toBe(await expected(row.id));
  });

  it("rounds every mean of up to 60 reviews as toAgentView does", async () => {
    const rows = await database.db.$queryRaw<{ sum: number; count: number; rating: string }[]>`
      SELECT s AS "sum", n AS "count", ${ratingSql(Prisma.sql`s`, Prisma.sql`n`)}::text AS "rating"
      FROM generate_series(0, 60) n, generate_series(n, 5 * n) s`;
    expect(rows.length).toBe(7381);
    const wrong = rows.filter(({ sum, count, rating }) => {
      const mean = count > 0 ? sum / count : 0;
      return rating !== JSON.stringify(Math.round(mean * 100) / 100);
    });
    expect(wrong).toEqual([]);
  });
});

describe("finishAgentJson", () => {
  it("checksums the addresses and writes totalPaidUsdc as JavaScript does, keys only", () => {
    const address = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
    const text = `{"name":"\\"walletAddress\\":\\"${address}\\"","walletAddress":"${address}",`;
    const total = JSON.stringify(Number("12345678901234.567891"));
    expect(total).not.toBe("12345678901234.567891");
    expect(finishAgentJson(`${text}"totalPaidUsdc":12345678901234.567891}`)).toBe(
      `{"name":"\\"walletAddress\\":\\"${address}\\"",` +
        `"walletAddress":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","totalPaidUsdc":${total}}`,
    );
  });

  it("takes an address with an upper-case letter as written (writers store getAddress's form)", () => {
    const checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
    const miscased = "0x5AAEB6053f3e94c9b9a09f33669435e7ef1beaed";
    const text = `{"walletAddress":"${checksummed}","operatorAddress":"${miscased}"}`;
    expect(finishAgentJson(text)).toBe(text);
  });
});
