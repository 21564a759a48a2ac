// The facilitator's verify by the token itself, against a real local chain and real
// signatures: "valid" only when the terms are the requirements' and the token executes the
// exact transfer; every other case is left to x402's own verify (undefined), never refused or
// passed here. And its simulation is the transfer x402's settle sends: the same calldata.
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { createPublicClient, encodeFunctionData, http, type Hex, parseSignature } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eip3009ABI } from "@x402/evm";
import {
  GANACHE_ADDRESSES,
  LOCAL_TOKEN_ADDRESS,
  localChain,
  mintTestUsdc,
} from "@/dev/local-chain";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { signPaymentHeader } from "@/tests/helpers/x402";
import { LOCAL_TOKEN_EIP712_DOMAIN } from "../chain/local-network";
import { parsePaymentHeader } from "../settle/payment-header";
import type { SendRequest } from "./sender";
import { type ChainChecks, verifiedByTheChain } from "./verify-by-chain";

let chain: TestChain;
let checks: ChainChecks;
let simulated: SendRequest[];
const payer = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
const payee = privateKeyToAccount(generatePrivateKey()).address;

const required: PaymentRequirements = {
  scheme: "exact",
  network: "eip155:31337",
  amount: "7250000",
  asset: LOCAL_TOKEN_ADDRESS,
  payTo: payee,
  maxTimeoutSeconds: 300,
  extra: { ...LOCAL_TOKEN_EIP712_DOMAIN },
};
const challenge: PaymentRequired = {
  x402Version: 2,
  resource: { url: "http://127.0.0.1/api/jobs/job_1/settle?proposalId=prp_1" },
  accepts: [required],
};

type SignOptions = Parameters<typeof signPaymentHeader>[2];
const payment = async (options: SignOptions = {}, signer = payer): Promise<PaymentPayload> =>
  parsePaymentHeader(await signPaymentHeader(signer, challenge, options)).payload;

beforeAll(async () => {
  chain = await startTestChain();
  await mintTestUsdc(chain.rpcUrl, payer.address, 100_000_000n);
  const client = createPublicClient({
    chain: localChain(chain.rpcUrl),
    transport: http(chain.rpcUrl, { retryCount: 0 }),
  });
  checks = {
    code: (address) => client.getCode({ address }),
    simulate: (request) => {
      simulated.push(request);
      // From a funded account, as the facilitator's gas key estimates it.
      return client.estimateGas({ account: GANACHE_ADDRESSES[1], ...request });
    },
  };
});

afterAll(async () => {
  await chain?.stop();
});

describe("verify by the token's own execution", () => {
  it("says valid for the requirements' terms signed by an address without code, after simulating exactly x402's transfer", async () => {
    simulated = [];
    const paid = await payment();
    expect(await verifiedByTheChain(paid, required, checks)).toEqual({
      isValid: true,
      invalidReason: undefined,
      payer: payer.address,
    });
    // The calldata x402's settle sends (its executeTransferWithAuthorization), so that the
    // send takes this simulation's gas estimate.
    const { authorization, signature } = paid.payload as {
      authorization: Record<string, string>;
      signature: Hex;
    };
    const { v, yParity, r, s } = parseSignature(signature);
    expect(simulated).toEqual([
      {
        to: LOCAL_TOKEN_ADDRESS,
        data: encodeFunctionData({
          abi: eip3009ABI,
          functionName: "transferWithAuthorization",
          args: [
            payer.address,
            payee,
            7_250_000n,
            BigInt(authorization.validAfter!),
            BigInt(authorization.validBefore!),
            authorization.nonce as Hex,
            Number(v || yParity),
            r,
            s,
          ],
        }),
      },
    ]);
  });

  const now = () => Math.floor(Date.now() / 1000);
  it.each([
    ["another payee", () => ({ signed: { to: stranger.address } })],
    ["another amount", () => ({ signed: { value: "7249999" } })],
    ["expiring within x402's 6 s margin", () => ({ signed: { validBefore: String(now() + 3) } })],
    ["not valid yet", () => ({ signed: { validAfter: String(now() + 3600) } })],
    ["another scheme", () => ({ accepted: { scheme: "upto" } })],
    ["another network", () => ({ accepted: { network: "eip155:8453" } })],
    ["terms sent other than signed", () => ({ sent: { validAfter: "1" } })],
  ] as const)("leaves %s to x402's verify", async (_name, options) => {
    simulated = [];
    expect(
      await verifiedByTheChain(await payment(options() as SignOptions), required, checks),
    ).toBeUndefined();
  });

  it("leaves another signer's signature to x402's verify: the token refused it", async () => {
    const honest = await payment();
    const forged = await payment({}, stranger);
    const swapped = {
      ...honest,
      payload: { ...honest.payload, signature: (forged.payload as { signature: Hex }).signature },
    };
    expect(await verifiedByTheChain(swapped, required, checks)).toBeUndefined();
  });

  it("leaves a used authorization and a payer without the funds to x402's verify", async () => {
    const paid = await payment();
    const { authorization, signature } = paid.payload as {
      authorization: Record<string, string>;
      signature: Hex;
    };
    const { v, yParity, r, s } = parseSignature(signature);
    // The authorization used on chain by someone else first.
    await chain.rpc("eth_sendTransaction", [
      {
        from: GANACHE_ADDRESSES[1],
        to: LOCAL_TOKEN_ADDRESS,
        data: encodeFunctionData({
          abi: eip3009ABI,
          functionName: "transferWithAuthorization",
          args: [
            payer.address,
            payee,
            7_250_000n,
            BigInt(authorization.validAfter!),
            BigInt(authorization.validBefore!),
            authorization.nonce as Hex,
            Number(v || yParity),
            r,
            s,
          ],
        }),
      },
    ]);
    expect(await verifiedByTheChain(paid, required, checks)).toBeUndefined();
    const broke = await payment({}, stranger);
    expect(await verifiedByTheChain(broke, required, checks)).toBeUndefined();
  });

  it("leaves a payer with code (a contract wallet, an EIP-7702 delegation) and a longer signature to x402's verify", async () => {
    const paid = await payment();
    await chain.setCode(payer.address, `0xef0100${"11".repeat(20)}`);
    try {
      expect(await verifiedByTheChain(paid, required, checks)).toBeUndefined();
    } finally {
      await chain.setCode(payer.address, "0x");
    }
    const long = {
      ...paid,
      payload: {
        ...paid.payload,
        signature: `${(paid.payload as { signature: Hex }).signature}${"00".repeat(32)}`,
      },
    };
    expect(await verifiedByTheChain(long, required, checks)).toBeUndefined();
    // The same payment again, untouched, still passes.
    expect(await verifiedByTheChain(await payment(), required, checks)).toMatchObject({
      isValid: true,
    });
  });
});
