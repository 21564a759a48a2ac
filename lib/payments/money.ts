/**
 * USDC amounts: integer atomic units (6 decimals) inside, JSON numbers at the edge.
 * The only place that converts. Conversion goes through the decimal string so that
 * 0.1 + 0.2 style float error can never change an amount.
 */
export const USDC_DECIMALS = 6;
export const ATOMIC_PER_USDC = 1_000_000n;
/** Largest amount the API accepts (contract: at most 1,000,000,000 USDC). */
export const MAX_USDC = 1_000_000_000;

/** True when `value` is a finite number with at most 6 decimal places. */
export function hasUsdcPrecision(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const [, fraction = ""] = toPlainDecimal(value).split(".");
  return fraction.length <= USDC_DECIMALS;
}

export function usdcToAtomic(value: number): bigint {
  if (!Number.isFinite(value) || value < 0 || !hasUsdcPrecision(value)) {
    throw new RangeError(`not a USDC amount: ${value}`);
  }
  const [whole = "0", fraction = ""] = toPlainDecimal(value).split(".");
  return BigInt(whole) * ATOMIC_PER_USDC + BigInt(fraction.padEnd(USDC_DECIMALS, "0"));
}

export function atomicToUsdc(atomic: bigint): number {
  const negative = atomic < 0n;
  const abs = negative ? -atomic : atomic;
  const whole = abs / ATOMIC_PER_USDC;
  const fraction = (abs % ATOMIC_PER_USDC).toString().padStart(USDC_DECIMALS, "0");
  const value = Number(`${whole}.${fraction}`);
  return negative ? -value : value;
}

/** "1.5" style display string with trailing zeros removed. */
export function formatUsdc(atomic: bigint): string {
  return atomicToUsdc(atomic).toLocaleString("en-US", { maximumFractionDigits: USDC_DECIMALS });
}

// Number#toString switches to exponent form below 1e-6 and above 1e21.
function toPlainDecimal(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toFixed(20).replace(/\.?0+$/, "");
}
