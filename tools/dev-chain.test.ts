// npm run dev starts the local chain before the app server, in a process that has no
// facilitator key (the app server gets the local chain's): finding the chain must not need one.
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/platform/config";
import { LOCAL_TOKEN_ADDRESS } from "@/lib/payments/chain/local-network";
import { resolveSettlementNetwork } from "@/lib/payments/chain/network";
import { startTestChain } from "@/tests/helpers/chain";
import { localNetwork, startDevChain } from "./dev-chain";

describe("the dev chain's network", () => {
  it("is found from a fresh checkout's settings, which have no facilitator key", () => {
    const fresh = parseEnv({ NODE_ENV: "development" });
    expect(fresh.FACILITATOR_PRIVATE_KEY).toBeUndefined();
    expect(() => resolveSettlementNetwork(fresh)).toThrow(/needs FACILITATOR_PRIVATE_KEY/);
    expect(localNetwork(fresh)).toMatchObject({
      rpcUrl: "http://127.0.0.1:8545",
      asset: LOCAL_TOKEN_ADDRESS,
    });
    const elsewhere = parseEnv({ NODE_ENV: "development", CHAIN_RPC_URL: "http://127.0.0.1:9545" });
    expect(localNetwork(elsewhere).rpcUrl).toBe("http://127.0.0.1:9545");
  });
});

describe("a chain already answering at CHAIN_RPC_URL", () => {
  it("is used when it is ours: chain 31337 with our token", async () => {
    const chain = await startTestChain();
    try {
      const found = await startDevChain({ rpcUrl: chain.rpcUrl, asset: LOCAL_TOKEN_ADDRESS });
      await found.stop();
    } finally {
      await chain.stop();
    }
  });

  it("is refused, saying what answered, when it is another chain id", async () => {
    const other = await startTestChain({ chainId: 1 });
    try {
      await expect(
        startDevChain({ rpcUrl: other.rpcUrl, asset: LOCAL_TOKEN_ADDRESS }),
      ).rejects.toThrow(
        new RegExp(
          `Chain 1 answers at ${other.rpcUrl}, but npm run dev needs the local chain \\(id 31337\\)`,
        ),
      );
    } finally {
      await other.stop();
    }
  });

  it("is refused when chain 31337 has no token of ours at the address", async () => {
    const empty = await startTestChain({ deploy: false });
    try {
      await expect(
        startDevChain({ rpcUrl: empty.rpcUrl, asset: LOCAL_TOKEN_ADDRESS }),
      ).rejects.toThrow(/with no token contract at .*it is not ours/);
    } finally {
      await empty.stop();
    }
  });
});
