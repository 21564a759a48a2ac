"use client";

import type { PayMode } from "./challenge-check";

const CHOICES: { mode: PayMode; title: string; description: string }[] = [
  {
    mode: "now",
    title: "Pay now — the agent is paid at once",
    description:
      "The USDC goes straight to the agent's wallet. If the work disappoints, only a review is left to you.",
  },
  {
    mode: "escrow",
    title: "Protected — held in escrow until you confirm the delivery",
    description:
      "The USDC waits in the Commerce Payments escrow contract and goes to the agent when you complete the job. If the agent does not deliver in time, you get it back.",
  },
];

/** The two ways to pay, before anything is signed (only where the server offers escrow). */
export function PayModeChoice({
  mode,
  onChoose,
  name,
}: {
  mode: PayMode;
  /** Null once an authorization is signed: the way to pay is then fixed. */
  onChoose: ((mode: PayMode) => void) | null;
  /** The radio group's name, unique per dialog. */
  name: string;
}) {
  return (
    <fieldset className="space-y-2" disabled={!onChoose} data-testid="pay-mode">
      <legend className="mb-2 text-sm font-semibold">How do you want to pay?</legend>
      {CHOICES.map((choice) => {
        const id = `${name}-${choice.mode}`;
        const chosen = mode === choice.mode;
        return (
          <label
            key={choice.mode}
            htmlFor={id}
            className={`flex cursor-pointer gap-3 rounded-xl border px-4 py-3 text-sm ${
              chosen
                ? "border-indigo-500 bg-indigo-50/60 ring-1 ring-indigo-500 dark:bg-indigo-950/40"
                : "border-slate-200 dark:border-slate-800"
            }`}
          >
            <input
              id={id}
              type="radio"
              name={name}
              value={choice.mode}
              checked={chosen}
              onChange={() => onChoose?.(choice.mode)}
              className="mt-0.5 size-4 shrink-0 accent-indigo-600"
              aria-describedby={`${id}-description`}
            />
            <span className="min-w-0">
              <span className="block font-medium">{choice.title}</span>
              <span
                id={`${id}-description`}
                className="mt-0.5 block text-slate-600 dark:text-slate-400"
              >
                {choice.description}
              </span>
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}
