"use client";

import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { useCallback, useEffect, useRef, useState } from "react";
import { erc20Abi } from "viem";
import { useAccount, useConfig, useReadContract, useSwitchChain } from "wagmi";
import { getWalletClient } from "wagmi/actions";
import { shortAddress } from "@/lib/shared/format";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";
import { describeFailure, postJson } from "@/components/forms/api";
import { Spinner } from "@/components/forms/fields";
import type { JobView } from "@/lib/shared/views";
import { sameAddress } from "@/lib/shared/address";
import { usdcToAtomic } from "@/lib/shared/money";
import type { PublicPaymentConfig } from "@/lib/shared/views";
import { requestSignIn } from "@/components/wallet/events";
import { WalletProviders } from "@/components/wallet/providers";
import { walletQueryClient } from "@/components/wallet/query-client";
import type { PayTarget } from "./types";

interface Props {
  target: PayTarget;
  payment: PublicPaymentConfig;
  viewerAddress: string;
  onLockChange(locked: boolean): void;
  onChanged(): void;
  onClose(): void;
}

export default function PayFlow(props: Props) {
  return (
    <WalletProviders chain={props.payment} sessionAddress={props.viewerAddress}>
      <PayStepper {...props} />
    </WalletProviders>
  );
}

type Challenge =
  | { kind: "loading" }
  | { kind: "ready"; paymentRequired: PaymentRequired; requirement: PaymentRequirements }
  | { kind: "error"; message: string; conflict: boolean };

type StepId = "sign" | "settle" | "accept";
const STEPS: { id: StepId; title: string; running: string }[] = [
  {
    id: "sign",
    title: "Sign the USDC authorization",
    running: "Confirm the signature in your wallet…",
  },
  { id: "settle", title: "Settle on chain", running: "Transferring USDC to the agent…" },
  { id: "accept", title: "Accept the proposal", running: "Recording the acceptance…" },
];

type Run =
  | { phase: "review" }
  | { phase: "running"; step: StepId }
  | { phase: "failed"; step: StepId; message: string; conflict?: boolean }
  | { phase: "done"; txHash: string };

const settleUrl = (target: PayTarget) =>
  `/api/jobs/${encodeURIComponent(target.jobId)}/settle?proposalId=${encodeURIComponent(target.proposalId)}`;

function PayStepper({ target, payment, viewerAddress, onLockChange, onChanged, onClose }: Props) {
  const config = useConfig();
  const { address, chainId, status: accountStatus } = useAccount();
  const { switchChainAsync } = useSwitchChain();
  const [challenge, setChallenge] = useState<Challenge>({ kind: "loading" });
  const [run, setRun] = useState<Run>({ phase: "review" });
  const payloadRef = useRef<PaymentPayload | null>(null);
  const txHashRef = useRef<string | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const bidAtomic = usdcToAtomic(target.bidUsdc);

  const balance = useReadContract({
    address: payment.asset,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: address ? [address] : undefined,
    chainId: payment.chainId,
    query: { enabled: Boolean(address) },
  });

  const loadChallenge = useCallback(async () => {
    setChallenge({ kind: "loading" });
    setChallenge(await fetchChallenge(target, payment, bidAtomic));
  }, [target, payment, bidAtomic]);

  useEffect(() => {
    // Reading the 402 challenge moves no money: it only tells what the server will ask for.
    let cancelled = false;
    fetchChallenge(target, payment, bidAtomic).then((result) => {
      if (!cancelled) setChallenge(result);
    });
    return () => {
      cancelled = true;
    };
  }, [target, payment, bidAtomic]);

  const locked = run.phase === "running" && run.step !== "sign";
  useEffect(() => onLockChange(locked), [locked, onLockChange]);

  useEffect(() => {
    if (run.phase === "done") headingRef.current?.focus();
  }, [run.phase]);

  async function sign(paymentRequired: PaymentRequired, requirement: PaymentRequirements) {
    if (!address) throw new UserFacingError("Connect your wallet first.");
    if (chainId !== payment.chainId) await switchChainAsync({ chainId: payment.chainId });
    const walletClient = await getWalletClient(config, {
      chainId: payment.chainId,
      account: address,
    });
    const signer = {
      address,
      signTypedData: (message: {
        domain: Record<string, unknown>;
        types: Record<string, unknown>;
        primaryType: string;
        message: Record<string, unknown>;
      }) => walletClient.signTypedData({ account: address, ...message } as never),
    };
    const client = new x402HTTPClient(
      x402Client.fromConfig({
        schemes: [{ network: payment.network, client: new ExactEvmScheme(signer) }],
        // Our token only, capped at exactly the amount shown above.
        spendControls: {
          maxAmountPerPayment: false,
          allowedAssets: [
            {
              network: payment.network,
              asset: payment.asset,
              maxAmountPerPayment: requirement.amount,
            },
          ],
        },
      }),
    );
    const payload = await client.createPaymentPayload({
      ...paymentRequired,
      accepts: [requirement],
    });
    return { payload, headers: client.encodePaymentSignatureHeader(payload) };
  }

  async function runFrom(step: StepId) {
    if (challenge.kind !== "ready") return;
    let current: StepId = step;
    try {
      let headers: Record<string, string> | undefined;
      if (current === "sign") {
        setRun({ phase: "running", step: "sign" });
        const signed = await sign(challenge.paymentRequired, challenge.requirement);
        payloadRef.current = signed.payload;
        headers = signed.headers;
        current = "settle";
      }
      if (current === "settle") {
        setRun({ phase: "running", step: "settle" });
        const payload = payloadRef.current;
        if (!payload) throw new UserFacingError("Sign the authorization first.");
        headers ??= new x402HTTPClient(new x402Client()).encodePaymentSignatureHeader(payload);
        txHashRef.current = await settle(target, headers, (fresh) => {
          // A refused payment comes with a fresh challenge: the retry signs against it.
          const requirement = pickRequirement(fresh, payment);
          if (requirement) setChallenge({ kind: "ready", paymentRequired: fresh, requirement });
        });
        onChanged();
        void walletQueryClient.invalidateQueries();
        current = "accept";
      }
      setRun({ phase: "running", step: "accept" });
      const txHash = txHashRef.current;
      if (!txHash) throw new UserFacingError("No settlement transaction to accept with.");
      const result = await postJson<JobView>(
        `/api/v1/jobs/${encodeURIComponent(target.jobId)}/accept`,
        {
          proposalId: target.proposalId,
          txHash,
        },
      );
      if (!result.ok) throw new UserFacingError(result.error);
      onChanged();
      setRun({ phase: "done", txHash });
    } catch (error) {
      const failure = describeError(error);
      if (payment.faucetEnabled && /insufficient balance/i.test(failure.message)) {
        failure.message += " Use “Get test USDC” at the top of the page, then retry.";
      }
      // A failed settlement needs a new signature; a failed accept only needs the accept again.
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

  // --- rendering ---

  if (challenge.kind === "loading") {
    return (
      <div className="px-5 py-8">
        <p
          role="status"
          className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400"
        >
          <Spinner /> Asking the server for the payment request…
        </p>
      </div>
    );
  }
  if (challenge.kind === "error") {
    return (
      <div className="space-y-4 px-5 py-6">
        <div
          role="alert"
          className="rounded-lg bg-red-50 px-4 py-3 text-sm text-red-800 dark:bg-red-950/60 dark:text-red-200"
        >
          {challenge.message}
        </div>
        <div className="flex justify-end gap-2">
          {challenge.conflict ? (
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => {
                onChanged();
                onClose();
              }}
            >
              Reload the job
            </button>
          ) : (
            <button type="button" className="btn btn-primary" onClick={loadChallenge}>
              Retry
            </button>
          )}
        </div>
      </div>
    );
  }

  const { requirement } = challenge;
  const amount = BigInt(requirement.amount);
  const wrongAccount = address && !sameAddress(address, viewerAddress);
  const insufficient = balance.data !== undefined && balance.data < amount;
  const canStart = run.phase === "review" && accountStatus === "connected" && !wrongAccount;

  return (
    <div className="space-y-5 px-5 py-5">
      <section aria-labelledby="pay-summary-title">
        <h3 id="pay-summary-title" className="sr-only">
          Payment request
        </h3>
        <dl
          className="divide-y divide-slate-200 rounded-xl border border-slate-200 text-sm dark:divide-slate-800 dark:border-slate-800"
          data-testid="payment-summary"
        >
          <div className="flex items-baseline justify-between gap-4 px-4 py-3">
            <dt className="text-slate-600 dark:text-slate-400">Amount</dt>
            <dd className="text-right text-lg font-bold tabular-nums" data-testid="payment-amount">
              {formatUsdc(atomicToUsdc(amount))} USDC
            </dd>
          </div>
          <div className="flex items-baseline justify-between gap-4 px-4 py-3">
            <dt className="text-slate-600 dark:text-slate-400">Pay to</dt>
            <dd className="min-w-0 text-right">
              <span className="block font-medium">{target.agentName}</span>
              <span
                className="block font-mono text-xs break-all text-slate-600 dark:text-slate-400"
                data-testid="payment-payee"
              >
                {requirement.payTo}
              </span>
            </dd>
          </div>
          <div className="flex items-baseline justify-between gap-4 px-4 py-3">
            <dt className="text-slate-600 dark:text-slate-400">Network</dt>
            <dd className="text-right">
              {payment.faucetEnabled ? "Local test chain" : "Base"}{" "}
              <span className="text-xs text-slate-500">({requirement.network})</span>
            </dd>
          </div>
          {address ? (
            <div className="flex items-baseline justify-between gap-4 px-4 py-3">
              <dt className="text-slate-600 dark:text-slate-400">Your balance</dt>
              <dd className="text-right tabular-nums">
                {balance.data !== undefined
                  ? `${formatUsdc(atomicToUsdc(balance.data))} USDC`
                  : "…"}
              </dd>
            </div>
          ) : null}
        </dl>
        <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
          You sign a one-time USDC transfer authorization (EIP-3009) for exactly this amount and
          payee. The server settles it on chain, then accepts the proposal. No gas is needed from
          you.
        </p>
      </section>

      {accountStatus === "connecting" || accountStatus === "reconnecting" ? (
        <p
          role="status"
          className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400"
        >
          <Spinner /> Connecting to your wallet…
        </p>
      ) : accountStatus === "disconnected" ? (
        <div className="rounded-lg bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-200">
          <p>Connect your wallet to sign the payment.</p>
          <button
            type="button"
            className="btn btn-sm btn-secondary mt-2"
            onClick={() => {
              onClose();
              requestSignIn();
            }}
          >
            Connect wallet
          </button>
        </div>
      ) : wrongAccount ? (
        <p
          role="alert"
          className="rounded-lg bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-200"
        >
          Your wallet&apos;s active account ({shortAddress(address)}) is not the signed-in poster (
          {shortAddress(viewerAddress)}). Switch accounts in your wallet.
        </p>
      ) : insufficient && run.phase === "review" ? (
        <p className="rounded-lg bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-200">
          Your balance looks lower than the amount
          {payment.faucetEnabled ? " — use “Get test USDC” at the top of the page" : ""}. The
          payment will be refused without enough USDC.
        </p>
      ) : null}

      {run.phase === "done" ? (
        <div className="rounded-xl bg-emerald-50 px-4 py-4 text-sm text-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-100">
          <h3
            ref={headingRef}
            tabIndex={-1}
            className="text-base font-semibold"
            data-testid="payment-done"
          >
            Paid and accepted
          </h3>
          <p className="mt-1">{target.agentName} is now working on this job.</p>
          <p className="mt-2 font-mono text-xs break-all">Transaction {run.txHash}</p>
        </div>
      ) : run.phase !== "review" ? (
        <ol className="space-y-3" aria-label="Payment progress">
          {STEPS.map((step, index) => (
            <StepRow
              key={step.id}
              index={index}
              title={step.title}
              running={step.running}
              state={stepState(run, step.id)}
              error={run.phase === "failed" && run.step === step.id ? run.message : undefined}
              onRetry={
                run.phase === "failed" && run.step === step.id && !run.conflict ? retry : undefined
              }
            />
          ))}
        </ol>
      ) : null}

      <div className="flex flex-col-reverse gap-2 border-t border-slate-200 pt-4 sm:flex-row sm:justify-end dark:border-slate-800">
        {run.phase === "done" ? (
          <button type="button" className="btn btn-primary" onClick={onClose}>
            Done
          </button>
        ) : run.phase === "failed" && run.conflict ? (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => {
              onChanged();
              onClose();
            }}
          >
            Reload the job
          </button>
        ) : (
          <>
            <button type="button" className="btn btn-secondary" onClick={onClose} disabled={locked}>
              Cancel
            </button>
            {run.phase === "review" ? (
              <button
                type="button"
                className="btn btn-primary"
                disabled={!canStart}
                onClick={() => void runFrom("sign")}
              >
                Sign &amp; pay {formatUsdc(atomicToUsdc(amount))} USDC
              </button>
            ) : null}
          </>
        )}
      </div>
    </div>
  );
}

type StepState = "upcoming" | "running" | "done" | "failed";

function stepState(run: Run, step: StepId): StepState {
  const order: StepId[] = ["sign", "settle", "accept"];
  if (run.phase === "done") return "done";
  if (run.phase === "review") return "upcoming";
  const current = order.indexOf(run.step);
  const index = order.indexOf(step);
  if (index < current) return "done";
  if (index > current) return "upcoming";
  return run.phase === "failed" ? "failed" : "running";
}

function StepRow({
  index,
  title,
  running,
  state,
  error,
  onRetry,
}: {
  index: number;
  title: string;
  running: string;
  state: StepState;
  error?: string;
  onRetry?: () => void;
}) {
  const icon = {
    upcoming: (
      <span className="grid size-7 place-items-center rounded-full border-2 border-slate-300 text-xs font-bold text-slate-500 dark:border-slate-700">
        {index + 1}
      </span>
    ),
    running: (
      <span className="grid size-7 place-items-center rounded-full bg-indigo-100 text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300">
        <Spinner />
      </span>
    ),
    done: (
      <span className="grid size-7 place-items-center rounded-full bg-emerald-600 text-white">
        <svg viewBox="0 0 20 20" fill="currentColor" className="size-4">
          <path
            fillRule="evenodd"
            d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.6l7.3-7.3a1 1 0 0 1 1.4 0Z"
            clipRule="evenodd"
          />
        </svg>
      </span>
    ),
    failed: (
      <span className="grid size-7 place-items-center rounded-full bg-red-600 text-sm font-bold text-white">
        !
      </span>
    ),
  }[state];
  const stateText = {
    upcoming: "not started",
    running: "in progress",
    done: "done",
    failed: "failed",
  }[state];
  return (
    <li className="flex gap-3" data-testid={`pay-step-${index + 1}`} data-state={state}>
      <span aria-hidden="true" className="shrink-0">
        {icon}
      </span>
      <div className="min-w-0 flex-1 pt-0.5">
        <p
          className={`text-sm font-semibold ${state === "upcoming" ? "text-slate-500 dark:text-slate-400" : ""}`}
        >
          {index + 1}. {title}
          <span className="sr-only"> ({stateText})</span>
        </p>
        {state === "running" ? (
          <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
            {running}
          </p>
        ) : null}
        {error ? (
          <div className="mt-1 space-y-2">
            <p
              role="alert"
              className="text-sm font-medium text-red-700 dark:text-red-400"
              data-testid="payment-error"
            >
              {error}
            </p>
            {onRetry ? (
              <button type="button" className="btn btn-sm btn-secondary" onClick={onRetry}>
                Retry
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
    </li>
  );
}

// --- protocol helpers ---

class UserFacingError extends Error {
  constructor(
    message: string,
    readonly options: { conflict?: boolean; resign?: boolean } = {},
  ) {
    super(message);
  }
}

const probe = new x402HTTPClient(new x402Client());

function pickRequirement(
  paymentRequired: PaymentRequired,
  payment: PublicPaymentConfig,
): PaymentRequirements | undefined {
  return paymentRequired.accepts.find(
    (accept) => accept.scheme === "exact" && accept.network === payment.network,
  );
}

/** The first, unpaid POST: the server answers 402 with what it wants signed. */
async function fetchChallenge(
  target: PayTarget,
  payment: PublicPaymentConfig,
  bidAtomic: bigint,
): Promise<Challenge> {
  let response: Response;
  try {
    response = await fetch(settleUrl(target), { method: "POST", credentials: "same-origin" });
  } catch {
    return {
      kind: "error",
      message: "Could not reach the server. Check your connection and retry.",
      conflict: false,
    };
  }
  const body = (await response.json().catch(() => undefined)) as { error?: string } | undefined;
  if (response.status !== 402) {
    if (response.status === 409) {
      return {
        kind: "error",
        message: `${describeFailure(409, body?.error)}. Reload the job to see where the payment stands.`,
        conflict: true,
      };
    }
    if (response.status === 404 && body?.error === "no such API endpoint") {
      return {
        kind: "error",
        message: "Payments are not available on this server yet.",
        conflict: false,
      };
    }
    return {
      kind: "error",
      message: response.ok
        ? "The server did not ask for a payment. Reload the job and retry."
        : describeFailure(response.status, body?.error),
      conflict: false,
    };
  }
  let paymentRequired: PaymentRequired;
  try {
    paymentRequired = probe.getPaymentRequiredResponse((name) => response.headers.get(name), body);
  } catch {
    return {
      kind: "error",
      message: "The server's payment request could not be read.",
      conflict: false,
    };
  }
  const requirement = pickRequirement(paymentRequired, payment);
  if (!requirement) {
    return {
      kind: "error",
      message: `The server asks for a payment on a network this page does not support (${paymentRequired.accepts
        .map((accept) => accept.network)
        .join(", ")}).`,
      conflict: false,
    };
  }
  // Never sign something other than what the page shows: the bid, to the agent, in our USDC.
  const mismatch = [
    BigInt(requirement.amount) !== bidAtomic && "amount",
    !sameAddress(requirement.payTo, target.agentWallet) && "payee",
    !sameAddress(requirement.asset, payment.asset) && "token",
  ].filter(Boolean);
  if (mismatch.length > 0) {
    return {
      kind: "error",
      message: `The payment request does not match this proposal (${mismatch.join(", ")} differ). Nothing was signed. Reload the job and retry.`,
      conflict: false,
    };
  }
  return { kind: "ready", paymentRequired, requirement };
}

/** The paid POST: 200 → the settlement's transaction hash. */
async function settle(
  target: PayTarget,
  headers: Record<string, string>,
  onFreshChallenge: (paymentRequired: PaymentRequired) => void,
): Promise<string> {
  let response: Response;
  try {
    response = await fetch(settleUrl(target), {
      method: "POST",
      credentials: "same-origin",
      headers,
    });
  } catch {
    throw new UserFacingError(
      "Could not reach the server while settling. Retry to resend the same authorization.",
    );
  }
  const body = (await response.json().catch(() => undefined)) as
    { data?: { txHash?: string }; error?: string } | undefined;
  if (response.ok && body?.data?.txHash) return body.data.txHash;
  if (response.status === 402) {
    try {
      onFreshChallenge(
        probe.getPaymentRequiredResponse((name) => response.headers.get(name), body),
      );
    } catch {
      // keep the previous challenge
    }
    throw new UserFacingError(
      `Payment refused: ${body?.error ?? "the payment could not be verified"}. No money moved.`,
      {
        resign: true,
      },
    );
  }
  if (response.status === 409) {
    throw new UserFacingError(
      `${describeFailure(409, body?.error)}. Reload the job to see where the payment stands.`,
      { conflict: true },
    );
  }
  throw new UserFacingError(describeFailure(response.status, body?.error), {
    resign: response.status < 500,
  });
}

function describeError(error: unknown): { message: string; conflict: boolean; resign: boolean } {
  if (error instanceof UserFacingError) {
    return {
      message: error.message,
      conflict: Boolean(error.options.conflict),
      resign: Boolean(error.options.resign),
    };
  }
  const text = error instanceof Error ? error.message : String(error);
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } })?.code ??
    (error as { cause?: { code?: unknown } })?.cause?.code;
  if (code === 4001 || /user (rejected|denied)/i.test(text)) {
    return {
      message: "You declined the signature in your wallet. Nothing was paid.",
      conflict: false,
      resign: true,
    };
  }
  return { message: text.split("\n")[0] || "Something went wrong.", conflict: false, resign: true };
}
