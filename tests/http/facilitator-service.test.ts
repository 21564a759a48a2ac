// The facilitator service (`npm run facilitator`, the one process holding the gas key) goes on
// when a library leaves a promise unawaited. x402 2.27's verify starts reading the token's code
// beside the payer's and, when the payer's read fails first, returns without awaiting it: with
// the chain not answering, that rejection was unhandled, and Node ends a process on one.
import { describe, expect, it } from "vitest";
import { LOCAL_TOKEN_ADDRESS } from "@/dev/local-chain";
import { startFacilitatorProcess, TEST_FACILITATOR_SECRET } from "@/tests/helpers/facilitator";

const PAYER = "0x1111111111111111111111111111111111111111";
const PAYEE = "0x2222222222222222222222222222222222222222";

/** A payment x402 itself must verify: its signature is not 65 bytes (a contract wallet's). */
function verifyBody() {
  const requirements = {
    scheme: "exact",
    network: "eip155:31337",
    amount: "1000000",
    asset: LOCAL_TOKEN_ADDRESS,
    payTo: PAYEE,
    maxTimeoutSeconds: 60,
    extra: { name: "USD Coin", version: "2" },
  };
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: PAYER,
    to: PAYEE,
    value: "1000000",
    validAfter: "0",
    validBefore: String(now + 600),
    nonce: `0x${"22".repeat(32)}`,
  };
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      accepted: requirements,
      payload: { signature: `0x${"11".repeat(70)}`, authorization },
    },
    paymentRequirements: requirements,
  };
}

describe("the facilitator service with its chain not answering", () => {
  it("answers a verify it cannot finish and keeps running", async () => {
    const facilitator = await startFacilitatorProcess({ CHAIN_RPC_URL: "http://127.0.0.1:9" });
    try {
      const headers = {
        authorization: `Bearer ${TEST_FACILITATOR_SECRET}`,
        "content-type": "application/json",
      };
      const verify = await fetch(`${facilitator.url}/verify`, {
        method: "POST",
        headers,
        body: JSON.stringify(verifyBody()),
      });
      expect(verify.status, facilitator.logs()).not.toBe(200);
      // The token's code read fails moments later (the port refuses at once).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const supported = await fetch(`${facilitator.url}/supported`, { headers }).catch(
        (error: Error) => error,
      );
      expect(supported, facilitator.logs()).toBeInstanceOf(Response);
      expect((supported as Response).status).toBe(200);
      // The rejection did happen, and was logged.
      expect(facilitator.logs()).toMatch(
        /Unhandled rejection \(the service goes on\): .*failed to check whether asset is a contract/,
      );
    } finally {
      await facilitator.stop();
    }
  });
});
