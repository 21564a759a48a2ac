"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { useAccount, useSignTypedData } from "wagmi";
import { api, callApi } from "@/components/api-client";
import { Spinner } from "@/components/forms/fields";
import { sameAddress } from "@/lib/shared/address";
import { shortAddress } from "@/lib/shared/format";
import type { PayeeConsentRequestView } from "@/lib/shared/view-types";

type Step = { kind: "signing" } | { kind: "sending" } | { kind: "failed"; message: string };

/** Inside the wallet tree: signs the request with the connected wallet and sends it. */
export default function PayeeConsentSigner({ request }: { request: PayeeConsentRequestView }) {
  const router = useRouter();
  const { address } = useAccount();
  const { signTypedDataAsync } = useSignTypedData();
  const [step, setStep] = useState<Step>({ kind: "signing" });
  const started = useRef(false);
  const rightWallet = address !== undefined && sameAddress(address, request.payeeAddress);

  useEffect(() => {
    if (!rightWallet || started.current) return;
    started.current = true;
    void (async () => {
      const { typedData } = request;
      let signature: `0x${string}`;
      try {
        signature = await signTypedDataAsync({
          ...typedData,
          message: { ...typedData.message, deadline: BigInt(typedData.message.deadline) },
        });
      } catch {
        setStep({ kind: "failed", message: "The wallet did not sign. Press the button to retry." });
        return;
      }
      setStep({ kind: "sending" });
      const result = await callApi(
        api.POST("/api/v1/agents/{id}/payee-consent", {
          params: { path: { id: request.agentId } },
          body: { signature },
        }),
      );
      if (result.ok) router.refresh();
      else setStep({ kind: "failed", message: result.error });
    })();
  }, [rightWallet, request, router, signTypedDataAsync]);

  if (!rightWallet) {
    return (
      <p role="alert" className="text-xs text-amber-800 dark:text-amber-300">
        Connect the wallet {shortAddress(request.payeeAddress)} to sign.
      </p>
    );
  }
  if (step.kind === "failed") {
    return (
      <p role="alert" className="text-xs font-medium text-red-700 dark:text-red-400">
        {step.message}
      </p>
    );
  }
  return (
    <p role="status" className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
      <Spinner /> {step.kind === "signing" ? "Sign the consent in your wallet…" : "Saving…"}
    </p>
  );
}
