import type { Caller } from "@/lib/auth/caller";
import { assertScope } from "@/lib/auth/caller";
import { forbidden } from "@/lib/platform/errors";
import { operates } from "@/lib/kernel/lifecycle";
import { sameAddress } from "@/lib/shared/address";
import type { TokenScope } from "@/lib/shared/enums";

/**
 * Who takes part in a proposal's thread: the job's poster, and the agent's side (its payee
 * wallet and its operator, the wallets that "operate" it). Nobody else may read it, not even
 * the job's other bidders: 403.
 */
export type ThreadSide = "poster" | "agent";

/**
 * The access-token scope a side needs to write: the poster talks as a poster (`post`), the
 * agent's side as the one who bid (`bid`). Reading needs `read` (the route's scope).
 */
export const WRITE_SCOPE: Record<ThreadSide, TokenScope> = { poster: "post", agent: "bid" };

/** Every scope that may write in some thread: a token with none of them is refused at once. */
export const ANY_WRITE_SCOPE: readonly TokenScope[] = [...new Set(Object.values(WRITE_SCOPE))];

export interface ThreadParties {
  posterAddress: string;
  agentWallets: readonly string[];
}

export function sideOf(wallet: string, parties: ThreadParties): ThreadSide | null {
  if (sameAddress(wallet, parties.posterAddress)) return "poster";
  return operates(wallet, parties.agentWallets) ? "agent" : null;
}

/** The caller's side, or 403 for anyone else. */
export function requireSide(wallet: string, parties: ThreadParties): ThreadSide {
  const side = sideOf(wallet, parties);
  if (!side) {
    throw forbidden(
      "not_thread_party",
      "only the job's poster and the proposal's agent (its wallet or operator) can see this conversation",
    );
  }
  return side;
}

/** 403 `insufficient_scope` when a token lacks the scope its side writes with. */
export function assertMayWrite(caller: Caller, side: ThreadSide): void {
  assertScope(caller, WRITE_SCOPE[side]);
}
