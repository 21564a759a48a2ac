import type { AccessTokenView } from "@/lib/shared/view-types";
import { RevokeTokenButton } from "./revoke-token-button";

const STATUS_STYLES: Record<AccessTokenView["status"], string> = {
  active: "text-emerald-700 dark:text-emerald-400",
  expired: "text-slate-500 dark:text-slate-400",
  revoked: "text-red-700 dark:text-red-400",
};

const day = (iso: string) => iso.slice(0, 10);

/** The wallet's tokens (no secrets): name, scopes, dates, and Revoke on live ones. */
export function TokenList({ tokens }: { tokens: AccessTokenView[] }) {
  if (tokens.length === 0) {
    return <p className="text-sm text-slate-600 dark:text-slate-400">No access tokens yet.</p>;
  }
  return (
    <ul className="divide-y divide-slate-200 dark:divide-slate-800" aria-label="Access tokens">
      {tokens.map((token) => (
        <li
          key={token.id}
          className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center sm:justify-between"
        >
          <div className="min-w-0 text-sm">
            <p className="font-semibold text-slate-900 dark:text-slate-100">
              {token.name}{" "}
              <span className={`text-xs font-medium ${STATUS_STYLES[token.status]}`}>
                {token.status}
              </span>
            </p>
            <p className="font-mono text-xs text-slate-600 dark:text-slate-400">
              {token.hint} · {token.scopes.join(", ")}
            </p>
            <p className="text-xs text-slate-500 dark:text-slate-400">
              Created {day(token.createdAt)} · expires {day(token.expiresAt)} ·{" "}
              {token.lastUsedAt ? `last used ${day(token.lastUsedAt)}` : "never used"}
            </p>
          </div>
          {token.status === "active" ? <RevokeTokenButton id={token.id} name={token.name} /> : null}
        </li>
      ))}
    </ul>
  );
}
