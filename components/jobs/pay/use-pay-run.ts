"use client";

import type { PaymentPayload } from "@x402/core/types";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { useAccount, useConfig, useSwitchChain } from "wagmi";
import { getWalletClient } from "wagmi/actions";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { describePayError, PayError, withFaucetHint } from "./pay-errors";
import type { PayTarget } from "./types";
import {
  acceptPaidProposal,
  type Challenge,
  fetchChallenge,
  type SignatureHeaders,
  settlePayment,
  signatureHeaders,
  signPayment,
  type TypedDataSigner,
} from "./x402-client";

export type StepId = "sign" | "settle" | "accept";

export type Run =
  | { phase: "review" }
  | { phase: "running"; step: StepId }
  | { phase: "failed"; step: StepId; message: string; conflict?: boolean }
  | { phase: "done"; txHash: string };

/**
 * The pay dialog's state: the 402 challenge, then sign → settle → accept, each step retryable
 * from where it failed (a failed settlement that cannot be resent signs again).
 */
export function usePayRun({
  target,
  payment,
  onLockChange,
  onChanged,
}: {
  target: PayTarget;
  payment: PublicPaymentConfig;
  onLockChange(locked: boolean): void;
  onChanged(): void;
}) {
  const config = useConfig();
  const { address, chainId } = useAccount();
  const { switchChainAsync } = useSwitchChain();
  const queryClient = useQueryClient();
  const [challenge, setChallenge] = useState<Challenge>({ kind: "loading" });
  const [run, setRun] = useState<Run>({ phase: "review" });
  const payloadRef = useRef<PaymentPayload | null>(null);
  const txHashRef = useRef<string | null>(null);

  const reloadChallenge = useCallback(async () => {
    setChallenge({ kind: "loading" });
    setChallenge(await fetchChallenge(target, payment));
  }, [target, payment]);

  useEffect(() => {
    let cancelled = false;
    fetchChallenge(target, payment).then((result) => {
      if (!cancelled) setChallenge(result);
    });
    return () => {
      cancelled = true;
    };
  }, [target, payment]);

  // Once the authorization is signed, money may be moving: the dialog must stay open.
  const locked = run.phase === "running" && run.step !== "sign";
  useEffect(() => onLockChange(locked), [locked, onLockChange]);

  async function walletSigner(): Promise<TypedDataSigner> {
    if (!address) throw new PayError("Connect your wallet first.");
    if (chainId !== payment.chainId) await switchChainAsync({ chainId: payment.chainId });
    const walletClient = await getWalletClient(config, {
      chainId: payment.chainId,
      account: address,
    });
    return {
      address,
      signTypedData: (message) =>
        walletClient.signTypedData({ account: address, ...message } as never),
    };
  }

  async function runFrom(step: StepId) {
    if (challenge.kind !== "ready") return;
    let current: StepId = step;
    try {
      let headers: SignatureHeaders | undefined;
      if (current === "sign") {
        setRun({ phase: "running", step: "sign" });
        const signed = await signPayment(await walletSigner(), payment, challenge);
        payloadRef.current = signed.payload;
        headers = signed.headers;
        current = "settle";
      }
      if (current === "settle") {
        setRun({ phase: "running", step: "settle" });
        const payload = payloadRef.current;
        if (!payload) throw new PayError("Sign the authorization first.");
        txHashRef.current = await settlePayment(
          target,
          payment,
          headers ?? signatureHeaders(payload),
          setChallenge,
        );
        onChanged();
        void queryClient.invalidateQueries();
        current = "accept";
      }
      setRun({ phase: "running", step: "accept" });
      const txHash = txHashRef.current;
      if (!txHash) throw new PayError("No settlement transaction to accept with.");
      await acceptPaidProposal(target, txHash);
      onChanged();
      setRun({ phase: "done", txHash });
    } catch (error) {
      const failure = withFaucetHint(describePayError(error), payment.faucetEnabled);
      setRun({
        phase: "failed",
        step: current,
        message: failure.message,
        conflict: failure.conflict,
      });
      if (current === "settle" && failure.resign) payloadRef.current = null;
    }
  }

  function retry() {
    if (run.phase !== "failed") return;
    if (run.step === "settle" && !payloadRef.current) return void runFrom("sign");
    void runFrom(run.step);
  }

  return {
    challenge,
    run,
    locked,
    reloadChallenge: () => void reloadChallenge(),
    start: () => void runFrom("sign"),
    retry,
  };
}
