// Our escrow stand-in against the published Commerce Payments Protocol v1.1.0: the same ABI
// (contracts/upstream-abi), the same PaymentInfo typehash and payment hash, and a payment signed
// by the published x402 `auth-capture` client (@x402/evm 2.27) is accepted by our collector in
// `authorize`.
import type { PaymentRequirements } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import {
  keccak256,
  parseEventLogs,
  toBytes,
  toEventSelector,
  toFunctionSelector,
  type Abi,
  type AbiEvent,
  type AbiFunction,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import upstreamEscrowAbi from "@/contracts/upstream-abi/AuthCaptureEscrow.json";
import upstreamErc3009CollectorAbi from "@/contracts/upstream-abi/ERC3009PaymentCollector.json";
import upstreamRefundCollectorAbi from "@/contracts/upstream-abi/OperatorRefundCollector.json";
import { testUsdcAbi } from "@/dev/contracts";
import {
  LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS as ESCROW,
  LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS as PAYMENT_COLLECTOR,
  erc3009PaymentCollectorAbi,
  operatorRefundCollectorAbi,
} from "@/dev/escrow";
import {
  DEMO_ACCOUNTS,
  LOCAL_NETWORK,
  LOCAL_TOKEN_ADDRESS,
  LOCAL_TOKEN_EIP712_DOMAIN,
} from "@/dev/local-chain";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import {
  authCaptureEscrowAbi,
  chainNow,
  escrowClients,
  payerAgnosticHash,
  paymentInfoHash,
  randomSalt,
  tokenBalance,
  type PaymentInfo,
} from "@/tests/helpers/escrow";

/**
 * Each function's, event's and error's selector (topic0 for events) and the constructor's
 * arguments, with what else callers depend on (mutability, outputs, indexed fields, names).
 */
function selectors(abi: Abi) {
  const out = new Map<string, string>();
  for (const item of abi) {
    if (item.type === "function") {
      const fn = item as AbiFunction;
      out.set(
        `function ${toFunctionSelector(fn)}`,
        JSON.stringify([fn.stateMutability, fn.outputs.map((o) => o.type)]),
      );
    } else if (item.type === "event") {
      const event = item as AbiEvent;
      out.set(
        `event ${toEventSelector(event)}`,
        JSON.stringify(event.inputs.map((i) => i.indexed ?? false)),
      );
    } else if (item.type === "constructor") {
      out.set("constructor", JSON.stringify(item.inputs.map((input) => input.type)));
    } else if (item.type === "error") {
      out.set(
        `error ${toFunctionSelector(item as unknown as AbiFunction)}`,
        (item as Extract<Abi[number], { type: "error" }>).name,
      );
    }
  }
  return out;
}

describe("the published v1.1.0 ABI", () => {
  it.each([
    ["AuthCaptureEscrow", authCaptureEscrowAbi, upstreamEscrowAbi],
    ["ERC3009PaymentCollector", erc3009PaymentCollectorAbi, upstreamErc3009CollectorAbi],
    ["OperatorRefundCollector", operatorRefundCollectorAbi, upstreamRefundCollectorAbi],
  ] as const)(
    "%s: the same selectors, event topics, errors, constructor and mutability",
    (_, ours, theirs) => {
      const expected = selectors(theirs as Abi);
      expect(expected.size).toBeGreaterThan(3);
      expect(selectors(ours as Abi)).toEqual(expected);
    },
  );

  it("capture and charge take a fee amount (v1.1.0), whose event topics are the published ones", () => {
    const find = (name: string) =>
      authCaptureEscrowAbi.find((item) => "name" in item && item.name === name);
    expect(toFunctionSelector(find("capture") as AbiFunction)).toBe(
      toFunctionSelector(
        "capture((address,address,address,address,uint120,uint48,uint48,uint48,uint16,uint16,address,uint256),uint256,uint256,address)",
      ),
    );
    // docs/Fees.md of v1.1.0 ("Event Migration") publishes these topic0 values.
    expect(toEventSelector(find("PaymentCharged") as AbiEvent)).toBe(
      "0x137b0e73e4453f43c2e1ad2552980a0e0c7e988764619974ca26d37a7159940c",
    );
    expect(toEventSelector(find("PaymentCaptured") as AbiEvent)).toBe(
      "0xac1e0db1957daedbc6944bcb4c8dc947ff8101d710671ac2ec26309f7f38d58e",
    );
  });
});

describe("on the local chain", () => {
  let chain: TestChain;
  let clients: ReturnType<typeof escrowClients>;
  const payer = privateKeyToAccount(DEMO_ACCOUNTS[1]!.privateKey);
  const operator = privateKeyToAccount(DEMO_ACCOUNTS[6]!.privateKey);
  const receiver = DEMO_ACCOUNTS[7]!.address;
  const feeReceiver = DEMO_ACCOUNTS[5]!.address;

  beforeAll(async () => {
    chain = await startTestChain();
    clients = escrowClients(chain.rpcUrl);
  });

  afterAll(async () => {
    await chain?.stop();
  });

  const read = <F extends "PAYMENT_INFO_TYPEHASH" | "getHash">(
    functionName: F,
    args?: readonly [PaymentInfo],
  ) =>
    clients.publicClient.readContract({
      address: ESCROW,
      abi: authCaptureEscrowAbi,
      functionName,
      args,
    } as Parameters<typeof clients.publicClient.readContract>[0]) as Promise<Hex>;

  it("has PAYMENT_INFO_TYPEHASH = keccak256 of the struct's type string", async () => {
    const typeString =
      "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)";
    expect(await read("PAYMENT_INFO_TYPEHASH")).toBe(keccak256(toBytes(typeString)));
    expect(keccak256(toBytes(typeString))).toBe(
      "0xae68ac7ce30c86ece8196b61a7c486d8f0061f575037fbd34e7fe4e2820c6591",
    );
  });

  it("getHash equals the EIP-712 struct hash bound to chain and escrow, computed in TypeScript", async () => {
    const now = await chainNow(clients.publicClient);
    const samples: PaymentInfo[] = [
      {
        operator: operator.address,
        payer: payer.address,
        receiver,
        token: LOCAL_TOKEN_ADDRESS,
        maxAmount: (1n << 120n) - 1n,
        preApprovalExpiry: now,
        authorizationExpiry: 2 ** 48 - 1,
        refundExpiry: 2 ** 48 - 1,
        minFeeBps: 0,
        maxFeeBps: 10_000,
        feeReceiver,
        salt: (1n << 256n) - 1n,
      },
      {
        operator: receiver,
        payer: "0x0000000000000000000000000000000000000000",
        receiver: operator.address,
        token: ESCROW,
        maxAmount: 1n,
        preApprovalExpiry: 1,
        authorizationExpiry: 2,
        refundExpiry: 3,
        minFeeBps: 7,
        maxFeeBps: 9,
        feeReceiver: "0x0000000000000000000000000000000000000000",
        salt: randomSalt(),
      },
    ];
    for (const info of samples) {
      expect(await read("getHash", [info])).toBe(paymentInfoHash(info));
    }
    // Another escrow address or chain id gives another hash.
    expect(paymentInfoHash(samples[0]!, PAYMENT_COLLECTOR)).not.toBe(paymentInfoHash(samples[0]!));
    expect(paymentInfoHash(samples[0]!, ESCROW, 8453)).not.toBe(paymentInfoHash(samples[0]!));
  });

  it("accepts in authorize a payment signed by the published x402 auth-capture client", async () => {
    const now = await chainNow(clients.publicClient);
    const requirements: PaymentRequirements = {
      scheme: "auth-capture",
      network: LOCAL_NETWORK,
      asset: LOCAL_TOKEN_ADDRESS,
      amount: "4200000",
      payTo: receiver,
      maxTimeoutSeconds: 300,
      extra: {
        ...LOCAL_TOKEN_EIP712_DOMAIN,
        authCaptureEscrow: ESCROW,
        captureAuthorizer: operator.address,
        captureDeadline: now + 3_600,
        refundDeadline: now + 86_400,
        feeRecipient: feeReceiver,
        minFeeBps: 0,
        maxFeeBps: 100,
      },
    };
    const client = new AuthCaptureEvmScheme(payer);
    const { payload } = await client.createPaymentPayload(2, requirements);
    const { authorization, signature, salt } = payload as {
      authorization: {
        from: Address;
        to: Address;
        value: string;
        validBefore: string;
        nonce: Hex;
      };
      signature: Hex;
      salt: Hex;
    };
    // The client signed for our collector, with the payer-agnostic hash as the nonce.
    expect(authorization.to).toBe(PAYMENT_COLLECTOR);
    expect(authorization.from).toBe(payer.address);

    // What a facilitator rebuilds from the requirements and the payload (the spec's appendix).
    const info: PaymentInfo = {
      operator: operator.address,
      payer: authorization.from,
      receiver,
      token: LOCAL_TOKEN_ADDRESS,
      maxAmount: BigInt(requirements.amount),
      preApprovalExpiry: Number(authorization.validBefore),
      authorizationExpiry: now + 3_600,
      refundExpiry: now + 86_400,
      minFeeBps: 0,
      maxFeeBps: 100,
      feeReceiver,
      salt: BigInt(salt),
    };
    expect(authorization.nonce).toBe(payerAgnosticHash(info));

    const before = await tokenBalance(clients.publicClient, payer.address);
    const wallet = clients.walletFor(operator);
    const hash = await wallet.writeContract({
      address: ESCROW,
      abi: authCaptureEscrowAbi,
      functionName: "authorize",
      args: [info, info.maxAmount, PAYMENT_COLLECTOR, signature],
    });
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    const [authorized] = parseEventLogs({
      abi: authCaptureEscrowAbi,
      logs: receipt.logs,
      eventName: "PaymentAuthorized",
    });
    expect(authorized?.args).toMatchObject({
      paymentInfoHash: paymentInfoHash(info),
      amount: 4_200_000n,
      tokenCollector: PAYMENT_COLLECTOR,
    });
    expect(await tokenBalance(clients.publicClient, payer.address)).toBe(before - 4_200_000n);
    expect(
      await clients.publicClient.readContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "authorizationState",
        args: [payer.address, authorization.nonce],
      }),
    ).toBe(true);
  });
});
