// npm run dev starts the local chain before the app server, in a process that has no
// facilitator key (the app server gets the local chain's): finding the chain must not need one.
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/config";
import { LOCAL_TOKEN_ADDRESS } from "@/lib/payments/local-network";
import { resolveSettlementNetwork } from "@/lib/payments/network";
import { localNetwork } from "./dev-chain";

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
