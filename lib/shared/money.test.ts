import { describe, expect, it } from "vitest";
import { atomicToUsdc, formatUsdc, hasUsdcPrecision, usdcToAtomic } from "./money";

describe("USDC money conversion", () => {
  it.each([
    [1, 1_000_000n],
    [0.1, 100_000n],
    [0.3, 300_000n],
    [0.000001, 1n],
    [123.456789, 123_456_789n],
    [1_000_000_000, 1_000_000_000_000_000n],
    [19.99, 19_990_000n],
  ])("%s USDC is %s atomic units and back", (usdc, atomic) => {
    expect(usdcToAtomic(usdc)).toBe(atomic);
    expect(atomicToUsdc(atomic)).toBe(usdc);
  });

  it.each([
    0.0000001,
    1.1234567,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    // Below 1e-6 String() writes an exponent: the digits count, not toFixed's rounding to 0.
    5e-324,
    Number.MIN_VALUE,
    1e-21,
    2e-20,
    1.5e-6,
  ])("refuses %s (more than 6 decimals or not finite)", (value) => {
    expect(hasUsdcPrecision(value)).toBe(false);
    expect(() => usdcToAtomic(value)).toThrow(RangeError);
  });

  it("reads exponent forms exactly", () => {
    expect(usdcToAtomic(1e21)).toBe(10n ** 21n * 1_000_000n);
    expect(usdcToAtomic(1e-6)).toBe(1n);
    expect(usdcToAtomic(2.5e-6 * 2)).toBe(5n);
  });

  it("has no float drift on sums done in atomic units", () => {
    expect(atomicToUsdc(usdcToAtomic(0.1) + usdcToAtomic(0.2))).toBe(0.3);
  });
});

describe("formatUsdc", () => {
  it.each([
    [1250, "1,250.00", "1,250"],
    [12.5, "12.50", "12.5"],
    [0.000001, "0.000001", "0.000001"],
    [7.25, "7.25", "7.25"],
  ])("%s USDC reads %s on pages and %s in messages", (amount, display, plain) => {
    expect(formatUsdc(amount)).toBe(display);
    expect(formatUsdc(amount, "plain")).toBe(plain);
  });
});
