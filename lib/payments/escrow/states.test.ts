// A held payment's ways out, read as the table in docs/payments.md: each leaves `held`, is in
// its own state while its transactions are decided, and ends in its own state.
import { describe, expect, it } from "vitest";
import { feeOf, isSettledState, OPEN_STATES, PLANS, planOf } from "./states";

describe("the held payment's plans", () => {
  it("release captures, refund voids, split captures then voids; each from held", () => {
    expect(PLANS).toEqual({
      release: { from: "held", during: "releasing", done: "released", steps: ["capture"] },
      refund: { from: "held", during: "refunding", done: "refunded", steps: ["void"] },
      split: { from: "held", during: "splitting", done: "split", steps: ["capture", "void"] },
    });
  });

  it("names the plan of a state in progress, and only of those", () => {
    expect(planOf("releasing")).toBe("release");
    expect(planOf("refunding")).toBe("refund");
    expect(planOf("splitting")).toBe("split");
    expect(planOf("held")).toBeUndefined();
    expect(planOf("released")).toBeUndefined();
  });

  it("calls released, refunded, split and reclaimed settled; held and the in-between states not", () => {
    expect(
      ["released", "refunded", "split", "reclaimed"].every((s) => isSettledState(s as never)),
    ).toBe(true);
    expect(
      ["held", "releasing", "refunding", "splitting"].some((s) => isSettledState(s as never)),
    ).toBe(false);
  });

  it("calls held and the in-between states open (the money may still be in escrow), no other", () => {
    expect([...OPEN_STATES].sort()).toEqual(["held", "refunding", "releasing", "splitting"]);
  });

  it("takes the fee in basis points of each capture, rounded down as the contract bounds it", () => {
    expect(feeOf(10_000_000n, 0)).toBe(0n);
    expect(feeOf(10_000_000n, 250)).toBe(250_000n);
    expect(feeOf(3n, 5_000)).toBe(1n);
    expect(feeOf(7_250_000n, 10_000)).toBe(7_250_000n);
  });
});
