// The escrow stand-in's behaviour on a real local chain: every operation of the Commerce
// Payments Protocol (v1.1.0 rules) and the refusals that bound it.
import { parseEventLogs, zeroAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testUsdcAbi } from "@/dev/contracts";
import {
  LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS as ESCROW,
  LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS as PAYMENT_COLLECTOR,
  LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS as REFUND_COLLECTOR,
  erc3009PaymentCollectorAbi,
  tokenStoreAbi,
} from "@/dev/escrow";
import { DEMO_ACCOUNTS, LOCAL_TOKEN_ADDRESS, mintTestUsdc } from "@/dev/local-chain";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import {
  authCaptureEscrowAbi,
  chainNow,
  escrowClients,
  paymentInfoHash,
  randomSalt,
  revertOf,
  signPaymentCollection,
  tokenBalance,
  type PaymentInfo,
} from "@/tests/helpers/escrow";

const payer = privateKeyToAccount(DEMO_ACCOUNTS[0]!.privateKey);
const operator = privateKeyToAccount(DEMO_ACCOUNTS[2]!.privateKey);
const stranger = privateKeyToAccount(DEMO_ACCOUNTS[5]!.privateKey);
const receiver = DEMO_ACCOUNTS[3]!.address;
const feeReceiver = DEMO_ACCOUNTS[4]!.address;

let chain: TestChain;
let clients: ReturnType<typeof escrowClients>;

beforeAll(async () => {
  chain = await startTestChain();
  clients = escrowClients(chain.rpcUrl);
});

afterAll(async () => {
  await chain?.stop();
});

const balance = (address: Address) => tokenBalance(clients.publicClient, address);
const store = () =>
  clients.publicClient.readContract({
    address: ESCROW,
    abi: authCaptureEscrowAbi,
    functionName: "getTokenStore",
    args: [operator.address],
  });
const state = async (info: PaymentInfo) => {
  const [hasCollectedPayment, capturableAmount, refundableAmount] =
    await clients.publicClient.readContract({
      address: ESCROW,
      abi: authCaptureEscrowAbi,
      functionName: "paymentState",
      args: [paymentInfoHash(info)],
    });
  return { hasCollectedPayment, capturableAmount, refundableAmount };
};

/** A payment of up to `maxAmount` (atomic tUSDC) whose expiries are counted from chain time. */
async function newPayment(overrides: Partial<PaymentInfo> = {}): Promise<PaymentInfo> {
  const now = await chainNow(clients.publicClient);
  return {
    operator: operator.address,
    payer: payer.address,
    receiver,
    token: LOCAL_TOKEN_ADDRESS,
    maxAmount: 10_000_000n,
    preApprovalExpiry: now + 600,
    authorizationExpiry: now + 3_600,
    refundExpiry: now + 7_200,
    minFeeBps: 100,
    maxFeeBps: 500,
    feeReceiver,
    salt: randomSalt(),
    ...overrides,
  };
}

/** Sends a call as `from` and returns its receipt's logs (throws on a revert). */
async function send(
  from: typeof operator,
  functionName: "authorize" | "capture" | "charge" | "void" | "reclaim" | "refund",
  args: readonly unknown[],
) {
  const wallet = clients.walletFor(from);
  const hash = await wallet.writeContract({
    address: ESCROW,
    abi: authCaptureEscrowAbi,
    functionName,
    args,
  } as Parameters<typeof wallet.writeContract>[0]);
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt.logs;
}

/** The same call simulated: for refusals (the revert is decoded from the escrow's ABI). */
function attempt(
  from: typeof operator,
  functionName: "authorize" | "capture" | "charge" | "void" | "reclaim" | "refund",
  args: readonly unknown[],
) {
  return revertOf(
    clients.publicClient.simulateContract({
      account: from,
      address: ESCROW,
      abi: authCaptureEscrowAbi,
      functionName,
      args,
    } as Parameters<typeof clients.publicClient.simulateContract>[0]),
  );
}

async function authorize(info: PaymentInfo, amount: bigint = info.maxAmount) {
  const signature = await signPaymentCollection(payer, info);
  return send(operator, "authorize", [info, amount, PAYMENT_COLLECTOR, signature]);
}

describe("authorize and capture", () => {
  it("holds the payment, captures part with a fee amount, then the rest", async () => {
    const info = await newPayment();
    const before = await Promise.all([payer.address, receiver, feeReceiver].map(balance));
    const storeBefore = await balance(await store());

    const logs = await authorize(info);
    const hash = paymentInfoHash(info);
    const [authorized] = parseEventLogs({
      abi: authCaptureEscrowAbi,
      logs,
      eventName: "PaymentAuthorized",
    });
    expect(authorized?.args).toMatchObject({
      paymentInfoHash: hash,
      amount: 10_000_000n,
      tokenCollector: PAYMENT_COLLECTOR,
    });
    expect(await state(info)).toEqual({
      hasCollectedPayment: true,
      capturableAmount: 10_000_000n,
      refundableAmount: 0n,
    });
    expect(await balance(payer.address)).toBe(before[0]! - 10_000_000n);
    expect(await balance(await store())).toBe(storeBefore + 10_000_000n);

    // 6 tUSDC, fee 0.18 (3%, inside 1%..5% of 6): the receiver gets 5.82.
    const first = await send(operator, "capture", [info, 6_000_000n, 180_000n, feeReceiver]);
    const [captured] = parseEventLogs({
      abi: authCaptureEscrowAbi,
      logs: first,
      eventName: "PaymentCaptured",
    });
    expect(captured?.args).toEqual({
      paymentInfoHash: hash,
      amount: 6_000_000n,
      feeAmount: 180_000n,
      feeReceiver,
    });
    expect(await balance(receiver)).toBe(before[1]! + 5_820_000n);
    expect(await balance(feeReceiver)).toBe(before[2]! + 180_000n);
    expect(await state(info)).toMatchObject({
      capturableAmount: 4_000_000n,
      refundableAmount: 6_000_000n,
    });

    // More than is left is refused; the rest, at the minimum fee (1% of 4), goes through.
    expect(await attempt(operator, "capture", [info, 4_000_001n, 40_000n, feeReceiver])).toEqual({
      name: "InsufficientAuthorization",
      args: [hash, 4_000_000n, 4_000_001n],
    });
    await send(operator, "capture", [info, 4_000_000n, 40_000n, feeReceiver]);
    expect(await balance(receiver)).toBe(before[1]! + 5_820_000n + 3_960_000n);
    expect(await balance(feeReceiver)).toBe(before[2]! + 220_000n);
    expect(await state(info)).toMatchObject({
      capturableAmount: 0n,
      refundableAmount: 10_000_000n,
    });
    expect(await balance(await store())).toBe(storeBefore);
  });

  it("authorizes less than the signed maximum and gives the rest straight back", async () => {
    const info = await newPayment();
    const before = await balance(payer.address);
    await authorize(info, 2_500_000n);
    expect(await balance(payer.address)).toBe(before - 2_500_000n);
    expect(await state(info)).toMatchObject({ capturableAmount: 2_500_000n });
  });

  it("keeps the fee within the payment's bounds and recipient", async () => {
    const info = await newPayment();
    await authorize(info);
    // 1%..5% of 2 tUSDC is 20,000..100,000.
    expect(await attempt(operator, "capture", [info, 2_000_000n, 19_999n, feeReceiver])).toEqual({
      name: "FeeAmountOutOfRange",
      args: [19_999n, 20_000n, 100_000n],
    });
    expect(await attempt(operator, "capture", [info, 2_000_000n, 100_001n, feeReceiver])).toEqual({
      name: "FeeAmountOutOfRange",
      args: [100_001n, 20_000n, 100_000n],
    });
    expect(await attempt(operator, "capture", [info, 2_000_000n, 50_000n, receiver])).toEqual({
      name: "InvalidFeeReceiver",
      args: [receiver, feeReceiver],
    });

    // With no fixed recipient the operator names one, but never the zero address for a fee.
    const open = await newPayment({ feeReceiver: zeroAddress });
    await authorize(open);
    expect(await attempt(operator, "capture", [open, 2_000_000n, 50_000n, zeroAddress])).toEqual({
      name: "ZeroFeeReceiver",
      args: [],
    });
    const before = await balance(stranger.address);
    await send(operator, "capture", [open, 2_000_000n, 50_000n, stranger.address]);
    expect(await balance(stranger.address)).toBe(before + 50_000n);
  });

  it("charges in one step: collected and paid out at once, refundable, never capturable", async () => {
    const info = await newPayment();
    const before = await Promise.all([receiver, feeReceiver].map(balance));
    const signature = await signPaymentCollection(payer, info);
    const logs = await send(operator, "charge", [
      info,
      5_000_000n,
      PAYMENT_COLLECTOR,
      signature,
      250_000n,
      feeReceiver,
    ]);
    const [charged] = parseEventLogs({
      abi: authCaptureEscrowAbi,
      logs,
      eventName: "PaymentCharged",
    });
    expect(charged?.args).toMatchObject({ amount: 5_000_000n, feeAmount: 250_000n, feeReceiver });
    expect(await balance(receiver)).toBe(before[0]! + 4_750_000n);
    expect(await balance(feeReceiver)).toBe(before[1]! + 250_000n);
    expect(await state(info)).toEqual({
      hasCollectedPayment: true,
      capturableAmount: 0n,
      refundableAmount: 5_000_000n,
    });
  });
});

describe("void and reclaim", () => {
  it("voids: the whole hold goes back to the payer, nothing is left to capture", async () => {
    const info = await newPayment();
    const before = await balance(payer.address);
    await authorize(info);
    const logs = await send(operator, "void", [info]);
    const [voided] = parseEventLogs({
      abi: authCaptureEscrowAbi,
      logs,
      eventName: "PaymentVoided",
    });
    expect(voided?.args).toEqual({ paymentInfoHash: paymentInfoHash(info), amount: 10_000_000n });
    expect(await balance(payer.address)).toBe(before);
    expect(await attempt(operator, "capture", [info, 1n, 0n, feeReceiver])).toMatchObject({
      name: "InsufficientAuthorization",
    });
    expect(await attempt(operator, "void", [info])).toEqual({
      name: "ZeroAuthorization",
      args: [paymentInfoHash(info)],
    });
    expect(await attempt(stranger, "void", [info])).toEqual({
      name: "InvalidSender",
      args: [stranger.address, operator.address],
    });
  });

  it("lets the payer alone reclaim the hold, and only from the authorization expiry on", async () => {
    const info = await newPayment();
    const before = await balance(payer.address);
    await authorize(info);
    await send(operator, "capture", [info, 1_000_000n, 10_000n, feeReceiver]);

    expect(await attempt(payer, "reclaim", [info])).toMatchObject({
      name: "BeforeAuthorizationExpiry",
    });
    const now = await chainNow(clients.publicClient);
    await chain.increaseTime(info.authorizationExpiry - now);

    expect(await attempt(operator, "reclaim", [info])).toEqual({
      name: "InvalidSender",
      args: [operator.address, payer.address],
    });
    // The operator can no longer capture what is left.
    expect(
      await attempt(operator, "capture", [info, 1_000_000n, 10_000n, feeReceiver]),
    ).toMatchObject({ name: "AfterAuthorizationExpiry" });
    const logs = await send(payer, "reclaim", [info]);
    const [reclaimed] = parseEventLogs({
      abi: authCaptureEscrowAbi,
      logs,
      eventName: "PaymentReclaimed",
    });
    expect(reclaimed?.args.amount).toBe(9_000_000n);
    expect(await balance(payer.address)).toBe(before - 1_000_000n);
    expect(await state(info)).toMatchObject({ capturableAmount: 0n, refundableAmount: 1_000_000n });
  });
});

describe("refund", () => {
  it("returns captured funds through the operator refund collector, with the operator's approval", async () => {
    const info = await newPayment();
    await authorize(info);
    await send(operator, "capture", [info, 8_000_000n, 80_000n, feeReceiver]);
    await mintTestUsdc(chain.rpcUrl, operator.address, 5_000_000n);
    const before = await Promise.all([payer.address, operator.address].map(balance));

    // Without an allowance the collector cannot pull from the operator.
    expect(await attempt(operator, "refund", [info, 3_000_000n, REFUND_COLLECTOR, "0x"])).toEqual({
      name: "Error",
      args: ["ERC20: transfer amount exceeds allowance"],
    });
    const wallet = clients.walletFor(operator);
    await clients.publicClient.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "approve",
        args: [REFUND_COLLECTOR, 3_000_000n],
      }),
    });
    // The payment collector is not a refund collector.
    expect(await attempt(operator, "refund", [info, 3_000_000n, PAYMENT_COLLECTOR, "0x"])).toEqual({
      name: "InvalidCollectorForOperation",
      args: [],
    });
    expect(
      await attempt(stranger, "refund", [info, 3_000_000n, REFUND_COLLECTOR, "0x"]),
    ).toMatchObject({ name: "InvalidSender" });

    const logs = await send(operator, "refund", [info, 3_000_000n, REFUND_COLLECTOR, "0x"]);
    const [refunded] = parseEventLogs({
      abi: authCaptureEscrowAbi,
      logs,
      eventName: "PaymentRefunded",
    });
    expect(refunded?.args).toEqual({
      paymentInfoHash: paymentInfoHash(info),
      amount: 3_000_000n,
      tokenCollector: REFUND_COLLECTOR,
    });
    expect(await balance(payer.address)).toBe(before[0]! + 3_000_000n);
    expect(await balance(operator.address)).toBe(before[1]! - 3_000_000n);
    expect(await state(info)).toMatchObject({ refundableAmount: 5_000_000n });
    expect(await attempt(operator, "refund", [info, 5_000_001n, REFUND_COLLECTOR, "0x"])).toEqual({
      name: "RefundExceedsCapture",
      args: [5_000_001n, 5_000_000n],
    });

    // Not from the refund expiry on.
    await chain.increaseTime(info.refundExpiry - (await chainNow(clients.publicClient)));
    expect(await attempt(operator, "refund", [info, 1n, REFUND_COLLECTOR, "0x"])).toMatchObject({
      name: "AfterRefundExpiry",
    });
  });
});

describe("refusals", () => {
  it("refuses a replayed authorize, and a signature for another payment", async () => {
    const info = await newPayment();
    const signature = await signPaymentCollection(payer, info);
    await send(operator, "authorize", [info, info.maxAmount, PAYMENT_COLLECTOR, signature]);
    expect(
      await attempt(operator, "authorize", [info, info.maxAmount, PAYMENT_COLLECTOR, signature]),
    ).toEqual({ name: "PaymentAlreadyCollected", args: [paymentInfoHash(info)] });
    // The same signature for the same terms but another salt: its nonce no longer matches.
    const other = { ...info, salt: randomSalt() };
    expect(
      await attempt(operator, "authorize", [other, other.maxAmount, PAYMENT_COLLECTOR, signature]),
    ).toEqual({ name: "Error", args: ["EIP3009: invalid signature"] });
  });

  it("refuses anyone but the operator", async () => {
    const info = await newPayment();
    const signature = await signPaymentCollection(payer, info);
    for (const who of [stranger, payer]) {
      expect(
        await attempt(who, "authorize", [info, info.maxAmount, PAYMENT_COLLECTOR, signature]),
      ).toEqual({ name: "InvalidSender", args: [who.address, operator.address] });
    }
    await authorize(info);
    expect(await attempt(stranger, "capture", [info, 1_000_000n, 10_000n, feeReceiver])).toEqual({
      name: "InvalidSender",
      args: [stranger.address, operator.address],
    });
  });

  it("refuses more than the payment's maximum, and a zero amount", async () => {
    const info = await newPayment();
    const signature = await signPaymentCollection(payer, info);
    expect(
      await attempt(operator, "authorize", [
        info,
        info.maxAmount + 1n,
        PAYMENT_COLLECTOR,
        signature,
      ]),
    ).toEqual({ name: "ExceedsMaxAmount", args: [info.maxAmount + 1n, info.maxAmount] });
    expect(await attempt(operator, "authorize", [info, 0n, PAYMENT_COLLECTOR, signature])).toEqual({
      name: "ZeroAmount",
      args: [],
    });
  });

  it("enforces preApprovalExpiry <= authorizationExpiry <= refundExpiry, and the pre-approval window", async () => {
    const now = await chainNow(clients.publicClient);
    const cases: [Partial<PaymentInfo>, string][] = [
      [{ preApprovalExpiry: now + 4_000, authorizationExpiry: now + 3_600 }, "InvalidExpiries"],
      [{ authorizationExpiry: now + 8_000, refundExpiry: now + 7_200 }, "InvalidExpiries"],
      [{ preApprovalExpiry: now - 1 }, "AfterPreApprovalExpiry"],
      [{ maxFeeBps: 10_001 }, "FeeBpsOverflow"],
      [{ minFeeBps: 600, maxFeeBps: 500 }, "InvalidFeeBpsRange"],
    ];
    for (const [overrides, name] of cases) {
      const info = await newPayment(overrides);
      const signature = await signPaymentCollection(payer, info);
      expect(
        await attempt(operator, "authorize", [info, info.maxAmount, PAYMENT_COLLECTOR, signature]),
        name,
      ).toMatchObject({ name });
    }
    // Equal expiries are allowed.
    const equal = await newPayment({
      preApprovalExpiry: now + 900,
      authorizationExpiry: now + 900,
      refundExpiry: now + 900,
    });
    await authorize(equal);
    expect(await state(equal)).toMatchObject({ capturableAmount: equal.maxAmount });
  });

  it("lets only the escrow move tokens through a collector or a token store", async () => {
    const info = await newPayment();
    const wallet = clients.walletFor(stranger);
    const collect = wallet.writeContract({
      address: PAYMENT_COLLECTOR,
      abi: erc3009PaymentCollectorAbi,
      functionName: "collectTokens",
      args: [info, stranger.address, 1n, "0x" as Hex],
    });
    expect(await revertOf(collect)).toEqual({ name: "OnlyAuthCaptureEscrow", args: [] });
    const implementation = await clients.publicClient.readContract({
      address: ESCROW,
      abi: authCaptureEscrowAbi,
      functionName: "tokenStoreImplementation",
    });
    for (const address of [implementation, await store()]) {
      expect(
        await revertOf(
          wallet.writeContract({
            address,
            abi: tokenStoreAbi,
            functionName: "sendTokens",
            args: [LOCAL_TOKEN_ADDRESS, stranger.address, 1n],
          }),
        ),
      ).toEqual({ name: "OnlyAuthCaptureEscrow", args: [] });
    }
  });
});
