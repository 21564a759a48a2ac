import "server-only";
import type { Address } from "viem";
import type { Db } from "@/lib/db";
import type { AgentView, MessageView } from "@/lib/shared/view-types";
import { agentWallets } from "@/lib/kernel/lifecycle";
import { sideOf } from "./participants";
import { readThread } from "./threads";

/** What the job page shows of one thread to one of its two parties. */
export interface JobThread {
  messages: MessageView[];
  /** Unread from the other side (the page opens such threads and marks them read by POST). */
  unread: number;
  /** The newest message shown: what the page marks read (never one the reader has not seen). */
  newestShownId: string | null;
}

/** The most messages the page shows per thread (the API pages through longer ones). */
export const PAGE_THREAD_MESSAGES = 100;

/**
 * The viewer's threads on a job, by proposal id: every proposal's for the poster, those of
 * the agents the viewer operates for the agent's side, none for anyone else. The page shows
 * a thread with unread messages open and then marks it read (POST …/messages/read) up to the
 * newest message it showed; rendering changes nothing.
 */
export async function getJobThreads(
  db: Db,
  viewer: Address | null,
  job: { id: string; posterAddress: string },
  proposals: readonly { id: string; agentId: string }[],
  agents: ReadonlyMap<string, AgentView>,
): Promise<Map<string, JobThread>> {
  const threads = new Map<string, JobThread>();
  if (!viewer) return threads;
  for (const proposal of proposals) {
    const agent = agents.get(proposal.agentId);
    if (!agent) continue;
    const parties = {
      posterAddress: job.posterAddress,
      agentWallets: agentWallets(agent),
    };
    const side = sideOf(viewer, parties);
    if (!side) continue;
    const page = await readThread(db, viewer, job.id, proposal.id, {
      after: 0n,
      limit: PAGE_THREAD_MESSAGES,
    });
    threads.set(proposal.id, {
      messages: page.items,
      unread: page.unreadCount,
      newestShownId: page.items.at(-1)?.id ?? null,
    });
  }
  return threads;
}
