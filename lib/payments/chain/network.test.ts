import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "@/lib/platform/config";
import { GANACHE_PRIVATE_KEYS } from "@/dev/local-chain";
import { CDP_FACILITATOR_URL, resolveSettlementNetwork } from "./network";

const resolve = (vars: Record<string, string>) => resolveSettlementNetwork(parseEnv(vars));
const SOME_KEY = `0x${"ab".repeat(32)}`;
const OTHER_KEY = `0x${"cd".repeat(32)}`;
/** 0.002 ETH, every 300 s. */
const DEFAULT_BALANCE_WATCH = { minimumWei: 2_000_000_000_000_000n, intervalMs: 300_000 };

describe("resolveSettlementNetwork: local", () => {
  it("defaults to the local chain with TestUSDC; the in-process facilitator needs a key", () => {
    const net = resolve({ FACILITATOR_PRIVATE_KEY: SOME_KEY });
    expect(net.name).toBe("local");
    expect(net.network).toBe("eip155:31337");
    expect(net.chain.id).toBe(31337);
    expect(net.rpcUrl).toBe("http://127.0.0.1:8545");
    expect(net.asset).toBe("0xe78A0F7E598Cc8b0Bb87894B0F60dD2a88d6a8Ab");
    expect(net.eip712Domain).toEqual({ name: "USD Coin Local", version: "2" });
    expect(net.decimals).toBe(6);
    expect(net.finalityBlocks).toBe(0);
    expect(net.facilitator).toEqual({
      kind: "self-hosted",
      privateKeys: [SOME_KEY],
      confirmationTimeoutMs: 20_000,
      balance: DEFAULT_BALANCE_WATCH,
    });
    // No key in production code: without one it says what to set.
    expect(() => resolve({})).toThrow(/needs FACILITATOR_PRIVATE_KEY/);
  });

  it("takes the RPC URL, a token override (checksummed) and a facilitator key or URL", () => {
    const net = resolve({
      CHAIN_RPC_URL: "http://127.0.0.1:9999",
      LOCAL_TOKEN_ADDRESS: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
      FACILITATOR_PRIVATE_KEY: SOME_KEY,
    });
    expect(net.rpcUrl).toBe("http://127.0.0.1:9999");
    expect(net.chain.rpcUrls.default.http).toEqual(["http://127.0.0.1:9999"]);
    expect(net.asset).toBe("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    expect(net.facilitator).toEqual({
      kind: "self-hosted",
      privateKeys: [SOME_KEY],
      confirmationTimeoutMs: 20_000,
      balance: DEFAULT_BALANCE_WATCH,
    });

    const remote = resolve({ X402_FACILITATOR_URL: "http://127.0.0.1:4022/facilitator" });
    expect(remote.facilitator).toEqual({
      kind: "http",
      url: "http://127.0.0.1:4022/facilitator",
      cdpAuth: false,
    });
  });
});

describe("resolveSettlementNetwork: several facilitator keys", () => {
  it("takes FACILITATOR_PRIVATE_KEYS, comma-separated, and the balance watch's settings", () => {
    const net = resolve({
      FACILITATOR_PRIVATE_KEYS: ` ${SOME_KEY} , ${OTHER_KEY}`,
      FACILITATOR_MIN_BALANCE_ETH: "0.5",
      FACILITATOR_BALANCE_CHECK_SECONDS: "60",
    });
    expect(net.facilitator).toEqual({
      kind: "self-hosted",
      privateKeys: [SOME_KEY, OTHER_KEY],
      confirmationTimeoutMs: 20_000,
      balance: { minimumWei: 500_000_000_000_000_000n, intervalMs: 60_000 },
    });
  });

  it("refuses a key given twice, a bad key, both variables, and the escrow operator's key", () => {
    expect(() =>
      resolve({
        FACILITATOR_PRIVATE_KEYS: `${SOME_KEY},${SOME_KEY.toUpperCase().replace("0X", "0x")}`,
      }),
    ).toThrow(/FACILITATOR_PRIVATE_KEYS: lists a key twice/);
    expect(() => resolve({ FACILITATOR_PRIVATE_KEYS: `${SOME_KEY},0x12` })).toThrow(
      /FACILITATOR_PRIVATE_KEYS.*32-byte hex private key/,
    );
    expect(() =>
      resolve({ FACILITATOR_PRIVATE_KEY: SOME_KEY, FACILITATOR_PRIVATE_KEYS: OTHER_KEY }),
    ).toThrow(/both set/);
    expect(() =>
      resolve({
        FACILITATOR_PRIVATE_KEYS: `${SOME_KEY},${OTHER_KEY}`,
        ESCROW_OPERATOR_PRIVATE_KEY: OTHER_KEY,
      }),
    ).toThrow(/ESCROW_OPERATOR_PRIVATE_KEY is also a facilitator gas key/);
    expect(() =>
      resolve({ FACILITATOR_PRIVATE_KEY: SOME_KEY, FACILITATOR_MIN_BALANCE_ETH: "lots" }),
    ).toThrow(/FACILITATOR_MIN_BALANCE_ETH/);
  });

  it("refuses a public test key among several on Base", () => {
    expect(() =>
      resolve({
        SETTLEMENT_NETWORK: "base",
        BASE_RPC_URL: "https://base.rpc.example",
        FACILITATOR_PRIVATE_KEYS: `${SOME_KEY},${GANACHE_PRIVATE_KEYS[3]}`,
      }),
    ).toThrow(/ganache/);
  });
});

describe("resolveSettlementNetwork: base", () => {
  it("uses Base mainnet USDC and its EIP-712 domain", () => {
    const net = resolve({
      SETTLEMENT_NETWORK: "base",
      X402_FACILITATOR_URL: "https://facilitator.example.com",
    });
    expect(net.name).toBe("base");
    expect(net.network).toBe("eip155:8453");
    expect(net.chain.id).toBe(8453);
    expect(net.asset).toBe("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    expect(net.eip712Domain).toEqual({ name: "USD Coin", version: "2" });
    expect(net.decimals).toBe(6);
    expect(net.rpcUrl).toBe("https://mainnet.base.org");
    expect(net.finalityBlocks).toBe(5);
    expect(net.facilitator).toEqual({
      kind: "http",
      url: "https://facilitator.example.com",
      cdpAuth: false,
    });
  });

  it("sends CDP auth with both CDP keys; the keys alone select Coinbase's facilitator", () => {
    const keys = { CDP_API_KEY_ID: "id", CDP_API_KEY_SECRET: "secret" };
    expect(
      resolve({ SETTLEMENT_NETWORK: "base", X402_FACILITATOR_URL: "https://f.example", ...keys })
        .facilitator,
    ).toEqual({ kind: "http", url: "https://f.example", cdpAuth: true });
    expect(resolve({ SETTLEMENT_NETWORK: "base", ...keys }).facilitator).toEqual({
      kind: "http",
      url: CDP_FACILITATOR_URL,
      cdpAuth: true,
    });
  });

  it("runs the facilitator in-process with BASE_RPC_URL and FACILITATOR_PRIVATE_KEY", () => {
    const net = resolve({
      SETTLEMENT_NETWORK: "base",
      BASE_RPC_URL: "https://base.rpc.example",
      FACILITATOR_PRIVATE_KEY: SOME_KEY,
    });
    expect(net.rpcUrl).toBe("https://base.rpc.example");
    expect(net.chain.rpcUrls.default.http).toEqual(["https://base.rpc.example"]);
    expect(net.facilitator).toEqual({
      kind: "self-hosted",
      privateKeys: [SOME_KEY],
      confirmationTimeoutMs: 60_000,
      balance: DEFAULT_BALANCE_WATCH,
    });
  });

  it("refuses incomplete or unsafe facilitator settings with a clear message", () => {
    expect(() => resolve({ SETTLEMENT_NETWORK: "base" })).toThrow(ConfigError);
    expect(() => resolve({ SETTLEMENT_NETWORK: "base" })).toThrow(/X402_FACILITATOR_URL/);
    expect(() =>
      resolve({ SETTLEMENT_NETWORK: "base", FACILITATOR_PRIVATE_KEY: SOME_KEY }),
    ).toThrow(/BASE_RPC_URL/);
    expect(() =>
      resolve({
        SETTLEMENT_NETWORK: "base",
        BASE_RPC_URL: "https://base.rpc.example",
        FACILITATOR_PRIVATE_KEY: GANACHE_PRIVATE_KEYS[1],
      }),
    ).toThrow(/ganache/);
    // Every one of ganache's public keys, not only the local facilitator's.
    for (const key of GANACHE_PRIVATE_KEYS) {
      expect(() =>
        resolve({
          SETTLEMENT_NETWORK: "base",
          BASE_RPC_URL: "https://base.rpc.example",
          FACILITATOR_PRIVATE_KEY: key,
        }),
      ).toThrow(/ganache/);
    }
    expect(() =>
      resolve({
        SETTLEMENT_NETWORK: "base",
        X402_FACILITATOR_URL: "https://f.example",
        CDP_API_KEY_ID: "id",
      }),
    ).toThrow(/together/);
  });
});

// Amounts: the bid's atomic units in the challenge, for bids a float cannot hold exactly, are
// checked where the product converts them (lib/payments/settle.test.ts; lib/shared/money.test.ts).
