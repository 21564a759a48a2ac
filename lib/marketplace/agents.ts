import { getAgentRowOrThrow } from "@/lib/kernel/rows";
import { type Address, getAddress } from "viem";
import type { Db } from "@/lib/db";
import { forbidden, notFound } from "@/lib/platform/errors";
import type { Agent } from "@/lib/generated/prisma/client";
import { sameAddress } from "@/lib/shared/address";
import type {
  CreateAgentInput,
  ListAgentsQuery,
  UpdateAgentInput,
} from "@/lib/shared/schemas/agents";
import { isPossibleId, newId } from "@/lib/kernel/ids";
import { beforeKeySql } from "@/lib/kernel/sorted-page";
import { agentFilters, searchAgentIdsSql } from "./agent-search";
import {
  finishAgentJson,
  selectAgentJson,
  selectNewestAgentJson,
  selectSortedAgentJson,
} from "./agent-rows";
import {
  decodeCursor,
  type JsonPage,
  keyedJsonPage,
  orderBy,
  type Page,
} from "@/lib/kernel/pagination";
import {
  consentToPayee,
  getConsentRequest,
  namePayee,
  replaceConsentRequest,
} from "@/lib/payments/payees";
import { agentReputationSql } from "@/lib/kernel/reputation";
import { type AgentStats, toAgentView } from "@/lib/kernel/serialize";
import type { AgentView } from "@/lib/shared/view-types";

/**
 * The caller becomes the agent's operator. A payee other than the caller's own wallet waits
 * for its consent (payee-consent.ts): until it signs, the agent is paid nowhere.
 */
export async function registerAgent(
  db: Db,
  operator: Address,
  input: CreateAgentInput,
): Promise<AgentView> {
  const payee = namePayee(operator, input.walletAddress ?? operator, null);
  const row = await db.$transaction(async (tx) => {
    const agent = await tx.agent.create({
      data: {
        id: newId("agent"),
        name: input.name,
        description: input.description,
        categories: input.categories,
        walletAddress: payee.walletAddress,
        pendingWalletAddress: payee.pendingWalletAddress,
        operatorAddress: operator,
      },
    });
    if (payee.needsConsent) await replaceConsentRequest(tx, agent, payee.pendingWalletAddress);
    return agent;
  });
  return toAgentView(row, EMPTY_STATS);
}

/** Whether `wallet` may edit the agent: its operator only (not its payee wallet). */
export function canEditAgent(agent: { operatorAddress: string }, wallet: string | null): boolean {
  return wallet !== null && sameAddress(agent.operatorAddress, wallet);
}

/**
 * The operator edits the agent's profile (404 unknown, 403 anyone else). A new payee wallet
 * goes through the same consent as at registration (the current payee stays until it signs),
 * and pays for bids made from then on: each proposal keeps the payee it was made with
 * (`proposals.payeeAddress`), so no payment already asked for or made changes hands.
 */
export async function updateAgent(
  db: Db,
  caller: Address,
  id: string,
  input: UpdateAgentInput,
): Promise<AgentView> {
  const row = await getAgentRowOrThrow(db, id);
  if (!canEditAgent(row, caller))
    throw forbidden("not_operator", "only the agent's operator can edit it");
  const payee =
    input.walletAddress === undefined
      ? undefined
      : namePayee(
          caller,
          input.walletAddress,
          row.walletAddress === null ? null : getAddress(row.walletAddress),
        );
  const updated = await db.$transaction(async (tx) => {
    if (payee) await replaceConsentRequest(tx, row, payee.pendingWalletAddress);
    return tx.agent.update({
      where: { id: row.id },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.categories !== undefined ? { categories: input.categories } : {}),
        ...(payee
          ? {
              walletAddress: payee.walletAddress,
              pendingWalletAddress: payee.pendingWalletAddress,
            }
          : {}),
      },
    });
  });
  const stats = await agentStats(db, [updated.id]);
  return toAgentView(updated, stats.get(updated.id) ?? EMPTY_STATS);
}

/** GET /api/v1/agents/:id/payee-consent: the open request and what to sign. */
export async function getPayeeConsentRequest(db: Db, caller: Address, id: string) {
  return getConsentRequest(db, caller, await getAgentRowOrThrow(db, id));
}

/** POST /api/v1/agents/:id/payee-consent: the named wallet's signature makes it the payee. */
export async function consentToAgentPayee(
  db: Db,
  id: string,
  signature: string,
): Promise<AgentView> {
  const row = await consentToPayee(db, await getAgentRowOrThrow(db, id), signature);
  const stats = await agentStats(db, [row.id]);
  return toAgentView(row, stats.get(row.id) ?? EMPTY_STATS);
}

/** One agent's view as JSON text, in one statement (agent-rows.ts); 404 for an unknown id. */
export async function getAgentJson(db: Db, id: string): Promise<{ json: string }> {
  const json = isPossibleId(id) ? await selectAgentJson(db, id) : undefined;
  if (json === undefined) throw notFound("agent_not_found", `agent ${id} not found`);
  return { json };
}

/** One agent as anyone may see it (getAgentJson's, parsed). */
export async function getAgent(db: Db, id: string): Promise<AgentView> {
  return JSON.parse((await getAgentJson(db, id)).json) as AgentView;
}

/**
 * A page of the directory with its items as JSON text, in one statement: newest first over
 * the agents table's index, or by rating or completed jobs over their keyset (agent-search.ts).
 */
export async function listAgentsJson(db: Db, query: ListAgentsQuery): Promise<JsonPage> {
  if (query.sort !== "newest") {
    const sort = query.sort;
    const rows = await selectSortedAgentJson(db, searchAgentIdsSql(query, sort), true);
    return keyedJsonPage(rows, query.limit, finishAgentJson, sort);
  }
  const conditions = agentFilters(query);
  const after = decodeCursor(query.cursor);
  if (after) conditions.push(beforeKeySql(after));
  const rows = await selectNewestAgentJson(db, conditions, query.limit + 1);
  return keyedJsonPage(rows, query.limit, finishAgentJson);
}

/** A page of the directory (listAgentsJson's, parsed). */
export async function listAgents(db: Db, query: ListAgentsQuery): Promise<Page<AgentView>> {
  const page = await listAgentsJson(db, query);
  return { items: JSON.parse(page.json) as AgentView[], nextCursor: page.nextCursor };
}

/** Agents by id (missing ids are skipped), with their ratings: for proposal lists. */
export async function getAgentsByIds(db: Db, ids: string[]): Promise<Map<string, AgentView>> {
  if (ids.length === 0) return new Map();
  const rows = await db.agent.findMany({ where: { id: { in: [...new Set(ids)] } } });
  return new Map((await withStats(db, rows)).map((agent) => [agent.id, agent]));
}

/** Prisma `where` for the agents a wallet operates (as payee or operator; contract: Agents). */
export const operatedBy = (wallet: Address) => ({
  OR: [{ walletAddress: wallet }, { operatorAddress: wallet }],
});

/** Agents a wallet operates (as payee or operator), newest first. */
export async function listAgentsOperatedBy(db: Db, wallet: Address): Promise<AgentView[]> {
  const rows = await db.agent.findMany({
    where: operatedBy(wallet),
    orderBy: orderBy("desc"),
    take: 100,
  });
  return withStats(db, rows);
}

const EMPTY_STATS: AgentStats = {
  ratingSum: 0,
  reviewCount: 0,
  completedJobs: 0,
  payers: 0,
  paidAtomic: 0n,
};

async function withStats(db: Db, rows: Agent[]): Promise<AgentView[]> {
  const stats = await agentStats(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toAgentView(row, stats.get(row.id) ?? EMPTY_STATS));
}

/**
 * Rating, counts and earnings are computed from reputable payments (reputation.ts), never
 * stored: what a dust or self-paid job left behind does not count.
 */
async function agentStats(db: Db, agentIds: string[]): Promise<Map<string, AgentStats>> {
  if (agentIds.length === 0) return new Map();
  const rows = await db.$queryRaw<(AgentStats & { agentId: string })[]>`
    SELECT * FROM ${agentReputationSql([...new Set(agentIds)])} stats`;
  return new Map(rows.map(({ agentId, ...stats }) => [agentId, stats]));
}
