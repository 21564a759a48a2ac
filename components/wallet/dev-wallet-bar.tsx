"use client";

import { useState } from "react";
import { useAccount } from "wagmi";
import { apiPaths } from "@/lib/shared/api-paths";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { postUndocumented } from "@/components/api-client";
import { useUsdcBalance } from "./use-usdc-balance";

const FAUCET_AMOUNT_USDC = 1_000;

/** Local chain only: the connected wallet's test-USDC balance and the faucet. */
export default function DevWalletBar({ payment }: { payment: PublicPaymentConfig }) {
  const { address, isConnected } = useAccount();
  const balance = useUsdcBalance(payment, address);
  const [state, setState] = useState<
    | { kind: "idle" }
    | { kind: "busy" }
    | { kind: "done"; text: string }
    | { kind: "error"; text: string }
  >({ kind: "idle" });

  if (!isConnected || !address) return null;

  async function getTestUsdc() {
    setState({ kind: "busy" });
    try {
      const result = await postUndocumented(apiPaths.faucet(), {
        address,
        amountUsdc: FAUCET_AMOUNT_USDC,
      });
      if (!result.ok) {
        throw new Error(
          result.status === 404
            ? "The faucet is not available on this server."
            : result.status === 0
              ? result.error
              : (result.serverError ?? `The faucet answered HTTP ${result.status}.`),
        );
      }
      await balance.refetch();
      setState({
        kind: "done",
        text: `Added ${FAUCET_AMOUNT_USDC.toLocaleString("en-US")} test USDC.`,
      });
    } catch (error) {
      setState({ kind: "error", text: error instanceof Error ? error.message : String(error) });
    }
  }

  const balanceText =
    balance.data !== undefined
      ? `${formatUsdc(atomicToUsdc(balance.data))} test USDC`
      : balance.isError
        ? "unavailable (is the local chain running?)"
        : "…";

  return (
    <div className="border-b border-amber-200 bg-amber-50 text-amber-950 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-100">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-2 text-sm">
        <span className="inline-flex items-center gap-1.5 font-semibold">
          <span aria-hidden="true" className="size-2 rounded-full bg-amber-500" />
          Local test chain
        </span>
        <span>
          Balance:{" "}
          <strong className="tabular-nums" data-testid="test-usdc-balance">
            {balanceText}
          </strong>
        </span>
        <button
          type="button"
          className="btn btn-sm btn-secondary"
          onClick={getTestUsdc}
          disabled={state.kind === "busy"}
        >
          {state.kind === "busy" ? "Minting…" : "Get test USDC"}
        </button>
        <span role="status" aria-live="polite" className="text-xs">
          {state.kind === "done" ? state.text : null}
        </span>
        {state.kind === "error" ? (
          <span role="alert" className="text-xs font-medium text-red-700 dark:text-red-300">
            {state.text}
          </span>
        ) : null}
      </div>
    </div>
  );
}
