/**
 * USDC amounts: integer atomic units (6 decimals) inside, JSON numbers at the edge.
 * The only place that converts or formats. Conversion goes through the decimal string so
 * that 0.1 + 0.2 style float error can never change an amount. Isomorphic.
 */
export const USDC_DECIMALS = 6;
export const ATOMIC_PER_USDC = 1_000_000n;
/**
 * The USDC each network pays in: Circle's on Base and Base Sepolia, the local chain's test
 * token (the deployer's first contract). The server's network table reads it from here.
 */
export const USDC_BY_NETWORK = {
  "eip155:8453": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  "eip155:84532": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  "eip155:31337": "0xe78A0F7E598Cc8b0Bb87894B0F60dD2a88d6a8Ab",
} as const satisfies Readonly<Record<string, `0x${string}`>>;

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

/** "12.5" → 12_500_000n: a plain decimal string (digits, at most 6 decimals) to atomic units. */
export function decimalToAtomic(text: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) throw new RangeError(`not a USDC amount: ${text}`);
  const [, whole = "0", fraction = ""] = match;
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

const usdcFormats = {
  // Prices on pages: always cents.
  display: new Intl.NumberFormat("en-US", {
    minimumFractionDigits: 2,
    maximumFractionDigits: USDC_DECIMALS,
  }),
  // Amounts inside sentences (API messages, x402 descriptions): as few digits as needed.
  plain: new Intl.NumberFormat("en-US", { maximumFractionDigits: USDC_DECIMALS }),
};

/**
 * display: 1250 → "1,250.00", 12.5 → "12.50", 0.000001 → "0.000001";
 * plain: 12.5 → "12.5", 1250 → "1,250". Atomic units: atomicToUsdc first.
 */
export function formatUsdc(amountUsdc: number, style: "display" | "plain" = "display"): string {
  return usdcFormats[style].format(amountUsdc);
}

/**
 * The number's shortest round-trip decimal (what JSON and String give), written out without an
 * exponent. Number#toString switches to exponent form below 1e-6 and from 1e21; the digits are
 * moved exactly, never through toFixed, which rounds 5e-324 to "0" and so passed it as an
 * amount with no decimals at all.
 */
function toPlainDecimal(value: number): string {
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (!match) return text;
  const [, sign = "", whole = "", fraction = "", exponentText = "0"] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponentText);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + "0".repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
