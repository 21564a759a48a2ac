// One execution of a transaction against the chain's state before it is sent, not two.
// Verifying a payment runs the very call the settlement will send (x402 simulates
// transferWithAuthorization with an eth_call; the escrow operator its authorize), and the
// sender then estimated the same calldata's gas (eth_estimateGas: the call executed once
// more). An estimate fails exactly where the call reverts, so it serves as the simulation, and
// its figure is kept here for the send of the same calldata that follows (issue 27).
import type { Hex } from "viem";
import { RecentMap } from "@/lib/shared/recent-map";
import type { SendRequest } from "./sender";

export class GasEstimates {
  /** An estimate serves its send for about a settlement's verify-to-broadcast time. */
  private readonly kept = new RecentMap<string, bigint>({ maxAgeMs: 30_000, max: 1_000 });

  constructor(private readonly estimate: (request: SendRequest) => Promise<bigint>) {}

  /** Estimates `request` now (rejecting as the call would revert) and keeps the figure. */
  async simulate(request: SendRequest): Promise<bigint> {
    const gas = await this.estimate(request);
    this.kept.set(keyOf(request), gas);
    return gas;
  }

  /** The figure kept for exactly this request, once (a later send of it estimates again). */
  take(request: SendRequest): bigint | undefined {
    const key = keyOf(request);
    const gas = this.kept.get(key);
    this.kept.delete(key);
    return gas;
  }
}

const keyOf = (request: { to: Hex; data: Hex }) =>
  `${request.to.toLowerCase()}:${request.data.toLowerCase()}`;
