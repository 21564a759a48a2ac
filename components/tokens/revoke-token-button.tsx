"use client";

import { requestJson } from "@/components/forms/api";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { apiPaths } from "@/lib/shared/api-paths";

/** Revokes an access token after an explicit confirmation. */
export function RevokeTokenButton({ id, name }: { id: string; name: string }) {
  return (
    <ConfirmButton
      label="Revoke"
      confirmLabel="Yes, revoke"
      groupLabel={`Revoke ${name}`}
      action={() => requestJson(apiPaths.token(id), { method: "DELETE" })}
    />
  );
}
