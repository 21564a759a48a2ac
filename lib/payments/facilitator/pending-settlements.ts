// x402's exact scheme remembers the hash of a settlement whose receipt it stopped waiting for
// (its pending-settlement store, keyed by the payment's signature), and a later settle of the
// same signature waits on that hash instead of sending again. Right while the transaction waits
// in the node: x402's own second try within a request. Wrong once the node has dropped it (a
// reset, an eviction from its pool): the reconciler's resubmit would wait on a transaction that
// can never land and store it again, pass after pass, until the authorization expired unpaid.
// This store forgets a hash the node no longer has, so that settle sends the authorization
// again (the token moves its money at most once, whoever sends it).
import {
  InMemoryPendingSettlementStore,
  type PendingSettlementStore,
} from "@x402/core/facilitator";
import type { Hex, PublicClient } from "viem";
import { transactionInNode } from "../chain/transactions";

export function pendingSettlementsInNode(client: PublicClient): PendingSettlementStore {
  const remembered = new InMemoryPendingSettlementStore();
  return {
    async get(signature) {
      const hash = await remembered.get(signature);
      if (hash === undefined) return undefined;
      let known: boolean;
      try {
        known = (await transactionInNode(client, hash as Hex)) !== undefined;
      } catch {
        // The node does not answer: wait on the hash as x402 would, rather than send twice.
        return hash;
      }
      if (known) return hash;
      await remembered.delete(signature);
      return undefined;
    },
    set: (signature, hash) => remembered.set(signature, hash),
    delete: (signature) => remembered.delete(signature),
  };
}
