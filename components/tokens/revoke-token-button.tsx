"use client";

import { api, callApi } from "@/components/api-client";
import { ConfirmButton } from "@/components/ui/confirm-button";

/** Revokes an access token after an explicit confirmation. */
export function RevokeTokenButton({ id, name }: { id: string; name: string }) {
  return (
    <ConfirmButton
      label="Revoke"
      confirmLabel="Yes, revoke"
      groupLabel={`Revoke ${name}`}
      action={() => callApi(api.DELETE("/api/v1/tokens/{id}", { params: { path: { id } } }))}
    />
  );
}
