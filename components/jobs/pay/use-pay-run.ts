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
  type PayMode,
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
 * The pay dialog's state: the way to pay (now by default, or protected when the server offers
 * it), its 402 challenge, then sign → settle → accept, each step retryable from where it
 * failed (a failed settlement that cannot be resent signs again).
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
  const [mode, setMode] = useState<PayMode>("now");
  // Each way to pay has its own challenge, asked for when first chosen and kept while the
  // poster switches back and forth.
  const [challenges, setChallenges] = useState<Partial<Record<PayMode, Challenge>>>({});
  const challenge: Challenge = challenges[mode] ?? { kind: "loading" };
  const [run, setRun] = useState<Run>({ phase: "review" });
  const payloadRef = useRef<PaymentPayload | null>(null);
  const txHashRef = useRef<string | null>(null);

  const setChallengeOf = useCallback(
    (of: PayMode, next: Challenge) => setChallenges((all) => ({ ...all, [of]: next })),
    [],
  );

  const reloadChallenge = useCallback(async () => {
    setChallengeOf(mode, { kind: "loading" });
    setChallengeOf(mode, await fetchChallenge(target, payment, mode));
  }, [target, payment, mode, setChallengeOf]);

  const asked = challenges[mode] !== undefined;
  useEffect(() => {
    if (asked) return;
    let cancelled = false;
    fetchChallenge(target, payment, mode).then((result) => {
      if (!cancelled) setChallengeOf(mode, result);
    });
    return () => {
      cancelled = true;
    };
  }, [target, payment, mode, asked, setChallengeOf]);

  // The way to pay can change until an authorization is signed.
  const canChooseMode = run.phase === "review" || (run.phase === "failed" && run.step === "sign");
  function chooseMode(next: PayMode) {
    if (!canChooseMode || next === mode) return;
    payloadRef.current = null;
    setRun({ phase: "review" });
    setMode(next);
  }

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
        const paidWith = challenge.mode;
        txHashRef.current = await settlePayment(
          target,
          payment,
          paidWith,
          headers ?? signatureHeaders(payload),
          (fresh) => setChallengeOf(paidWith, fresh),
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
    mode,
    chooseMode: canChooseMode ? chooseMode : null,
    challenge,
    run,
    locked,
    reloadChallenge: () => void reloadChallenge(),
    start: () => void runFrom("sign"),
    retry,
  };
}
