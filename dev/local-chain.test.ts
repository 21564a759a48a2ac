// Integration: a real local chain (Hardhat's node, in memory), TestUSDC, the escrow stand-in,
// the self-hosted x402 facilitator.
import { randomBytes } from "node:crypto";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  keccak256,
  parseEventLogs,
  toBytes,
  parseSignature,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/platform/config";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { MULTICALL3_ADDRESS, testUsdcAbi, transferWithAuthorizationTypes } from "./contracts";
import {
  LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
  LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS,
  LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS,
  LOCAL_TOKEN_STORE_IMPLEMENTATION_ADDRESS,
  authCaptureEscrowAbi,
  erc3009PaymentCollectorAbi,
  localEscrowCode,
  operatorRefundCollectorAbi,
  tokenStoreAbi,
} from "./escrow";
import { COMMERCE_PAYMENTS_V1_1 } from "@/lib/payments/chain/escrow-deployments";
import {
  createSelfHostedFacilitator,
  type FacilitatorClient,
} from "@/lib/payments/facilitator/facilitators";
import {
  DEMO_ACCOUNTS,
  DEMO_FUNDING_ATOMIC,
  GANACHE_ADDRESSES,
  GANACHE_PRIVATE_KEYS,
  LOCAL_FACILITATOR_ADDRESS,
  LOCAL_FACILITATOR_ENV,
  DEPLOYED_TOKEN_ADDRESS,
  LOCAL_TOKEN_ADDRESS,
  deployLocalChain,
  mintTestUsdc,
} from "./local-chain";
import { usdcToAtomic } from "@/lib/shared/money";
import {
  resolveSettlementNetwork,
  toAssetAmount,
  type SettlementNetwork,
} from "@/lib/payments/chain/network";
import {
  AuthorizationLogNotFoundError,
  findAuthorizationLog,
  verifyTransferReceipt,
} from "@/lib/payments/chain/verify-receipt";

let chain: TestChain;
let net: SettlementNetwork;
let client: PublicClient;
let facilitator: FacilitatorClient;

const account = (i: number) => privateKeyToAccount(DEMO_ACCOUNTS[i]!.privateKey);
const balanceOf = (address: Address) =>
  client.readContract({
    address: LOCAL_TOKEN_ADDRESS,
    abi: testUsdcAbi,
    functionName: "balanceOf",
    args: [address],
  });

function requirementsFor(payTo: Address, amountUsdc: number): PaymentRequirements {
  const price = toAssetAmount(net, amountUsdc);
  return {
    scheme: "exact",
    network: net.network,
    asset: price.asset,
    amount: price.amount,
    payTo,
    maxTimeoutSeconds: 300,
    extra: price.extra,
  };
}

/** What a wallet does for x402 "exact" on EVM: sign EIP-3009 TransferWithAuthorization. */
async function signPayment(
  payer: PrivateKeyAccount,
  requirements: PaymentRequirements,
  domain: { name: string; version: string } = net.eip712Domain,
) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: payer.address,
    to: requirements.payTo as Address,
    value: BigInt(requirements.amount),
    validAfter: now - 600n,
    validBefore: now + BigInt(requirements.maxTimeoutSeconds),
    nonce: toHex(randomBytes(32)),
  };
  const signature = await payer.signTypedData({
    domain: { ...domain, chainId: 31337, verifyingContract: requirements.asset as Address },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: { url: "http://localhost/test" },
    accepted: requirements,
    payload: {
      authorization: {
        from: authorization.from,
        to: authorization.to,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
        nonce: authorization.nonce,
      },
      signature,
    },
  };
  return { payload, authorization, signature };
}

beforeAll(async () => {
  chain = await startTestChain();
  net = resolveSettlementNetwork(
    parseEnv({ ...LOCAL_FACILITATOR_ENV, CHAIN_RPC_URL: chain.rpcUrl }),
  );
  client = createPublicClient({
    chain: net.chain,
    transport: http(chain.rpcUrl),
    pollingInterval: 100,
  });
  if (net.facilitator.kind !== "self-hosted") throw new Error("expected the local facilitator");
  facilitator = createSelfHostedFacilitator(net, net.facilitator);
});

afterAll(async () => {
  await chain?.stop();
});

describe("local chain deployment", () => {
  it("deploys TestUSDC where the production code expects the local token", () => {
    expect(DEPLOYED_TOKEN_ADDRESS).toBe(LOCAL_TOKEN_ADDRESS);
  });

  it("has ganache's deterministic accounts, each with 10,000 ETH", async () => {
    const wallet = createWalletClient({ chain: net.chain, transport: http(chain.rpcUrl) });
    const accounts = await wallet.getAddresses();
    expect(accounts.map((a) => a.toLowerCase())).toEqual(
      GANACHE_ADDRESSES.map((a) => a.toLowerCase()),
    );
    GANACHE_PRIVATE_KEYS.forEach((key, i) => {
      expect(privateKeyToAccount(key).address).toBe(GANACHE_ADDRESSES[i]);
    });
    expect(await client.getBalance({ address: GANACHE_ADDRESSES[9] })).toBe(10n ** 22n);
  });

  it("installs the escrow stand-in at Base's v1.1.0 addresses, wired to each other", async () => {
    expect(LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS).toBe(COMMERCE_PAYMENTS_V1_1.authCaptureEscrow);
    expect(LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS).toBe(
      COMMERCE_PAYMENTS_V1_1.erc3009PaymentCollector,
    );
    expect(LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS).toBe(
      COMMERCE_PAYMENTS_V1_1.operatorRefundCollector,
    );
    for (const { address, code } of localEscrowCode()) {
      expect(await client.getCode({ address })).toBe(code);
    }
    const read = (
      address: Address,
      abi: typeof tokenStoreAbi | typeof operatorRefundCollectorAbi,
    ) => client.readContract({ address, abi, functionName: "authCaptureEscrow" });
    expect(
      await client.readContract({
        address: LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
        abi: authCaptureEscrowAbi,
        functionName: "tokenStoreImplementation",
      }),
    ).toBe(LOCAL_TOKEN_STORE_IMPLEMENTATION_ADDRESS);
    expect(await read(LOCAL_TOKEN_STORE_IMPLEMENTATION_ADDRESS, tokenStoreAbi)).toBe(
      LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
    );
    expect(await read(LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS, operatorRefundCollectorAbi)).toBe(
      LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
    );
    const collector = (functionName: "authCaptureEscrow" | "multicall3" | "collectorType") =>
      client.readContract({
        address: LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS,
        abi: erc3009PaymentCollectorAbi,
        functionName,
      });
    expect(await collector("authCaptureEscrow")).toBe(LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS);
    expect(await collector("multicall3")).toBe(MULTICALL3_ADDRESS);
    expect(await collector("collectorType")).toBe(0); // Payment
    // No transaction went into it: the deployer's nonces are the token's and the 8 mints'.
    expect(await client.getTransactionCount({ address: GANACHE_ADDRESSES[0] })).toBe(9);
  });

  it("deploys TestUSDC with its metadata, Multicall3, and funds the demo accounts", async () => {
    const read = <F extends "name" | "symbol" | "decimals" | "version" | "owner">(
      functionName: F,
    ) => client.readContract({ address: LOCAL_TOKEN_ADDRESS, abi: testUsdcAbi, functionName });
    expect(await read("name")).toBe("USD Coin Local");
    expect(await read("symbol")).toBe("tUSDC");
    expect(await read("decimals")).toBe(6);
    expect(await read("version")).toBe("2");
    expect(await read("owner")).toBe(GANACHE_ADDRESSES[0]);
    expect(await client.getCode({ address: MULTICALL3_ADDRESS })).toMatch(/^0x[0-9a-f]{100,}$/);
    for (const demo of DEMO_ACCOUNTS)
      expect(await balanceOf(demo.address)).toBe(DEMO_FUNDING_ATOMIC);
  });

  it("deploys on an empty chain, then does nothing", async () => {
    const empty = await startTestChain({ deploy: false });
    try {
      const first = await deployLocalChain(empty.rpcUrl);
      expect(first).toEqual({
        deployed: true,
        tokenAddress: LOCAL_TOKEN_ADDRESS,
        funded: DEMO_ACCOUNTS.map((demo) => demo.address),
      });
      expect(await deployLocalChain(empty.rpcUrl)).toMatchObject({ deployed: false });
    } finally {
      await empty.stop();
    }
  });

  it("is idempotent", async () => {
    const before = await client.getBlockNumber({ cacheTime: 0 });
    const again = await deployLocalChain(chain.rpcUrl);
    expect(again).toEqual({ deployed: false, tokenAddress: LOCAL_TOKEN_ADDRESS, funded: [] });
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(before);
  });

  it("mints from the faucet, and only the owner can mint", async () => {
    const fresh = privateKeyToAccount(`0x${"11".repeat(32)}`).address;
    const hashes = await Promise.all([
      mintTestUsdc(chain.rpcUrl, fresh, 1_000_000n),
      mintTestUsdc(chain.rpcUrl, fresh, 2_500_000n),
    ]);
    expect(new Set(hashes).size).toBe(2);
    expect(await balanceOf(fresh)).toBe(3_500_000n);

    const stranger = createWalletClient({
      account: account(7),
      chain: net.chain,
      transport: http(chain.rpcUrl),
    });
    await expect(
      stranger.writeContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [stranger.account.address, 1n],
      }),
    ).rejects.toThrow(/not the owner/);
  });
});

describe("the local chain under concurrent requests", () => {
  it("answers every gas estimate while it mines transactions from other accounts", async () => {
    // ganache 7, left to process requests concurrently, never answered some estimates made
    // while it mined (3 s of this lost several every time); Hardhat's node must answer them all.
    const timely = { timeout: 5_000, retryCount: 0 };
    const reader = createPublicClient({ chain: net.chain, transport: http(chain.rpcUrl, timely) });
    const sender = createWalletClient({
      account: account(6),
      chain: net.chain,
      transport: http(chain.rpcUrl, timely),
    });
    const mintData = encodeFunctionData({
      abi: testUsdcAbi,
      functionName: "mint",
      args: [sender.account.address, 1n],
    });
    const until = Date.now() + 3_000;
    const failures: string[] = [];
    const counts = { estimates: 0, transfers: 0, mints: 0 };
    const repeat = async (kind: keyof typeof counts, call: () => Promise<unknown>) => {
      while (Date.now() < until) {
        try {
          await call();
          counts[kind] += 1;
        } catch (error) {
          failures.push(`${kind}: ${(error as Error).message.split("\n")[0]}`);
        }
      }
    };

    await Promise.all([
      repeat("transfers", () => sender.sendTransaction({ to: GANACHE_ADDRESSES[3]!, value: 1n })),
      repeat("mints", () => mintTestUsdc(chain.rpcUrl, sender.account.address, 1n)),
      ...Array.from({ length: 3 }, () =>
        repeat("estimates", () =>
          reader.estimateGas({
            account: GANACHE_ADDRESSES[0]!,
            to: LOCAL_TOKEN_ADDRESS,
            data: mintData,
          }),
        ),
      ),
    ]);

    expect(failures).toEqual([]);
    expect(counts.estimates).toBeGreaterThan(0);
    expect(counts.transfers).toBeGreaterThan(0);
    expect(counts.mints).toBeGreaterThan(0);
  });
});

describe("x402 settlement through the self-hosted facilitator", () => {
  const poster = () => account(0); // ganache account 2
  const agent = () => account(1).address; // ganache account 3

  it("advertises exact on eip155:31337 with ganache account 1 as the signer", async () => {
    const supported = await facilitator.getSupported();
    expect(supported.kinds).toContainEqual(
      expect.objectContaining({ x402Version: 2, scheme: "exact", network: "eip155:31337" }),
    );
    expect(supported.signers["eip155:*"] ?? Object.values(supported.signers).flat()).toContain(
      LOCAL_FACILITATOR_ADDRESS,
    );
  });

  it("verifies, settles, moves the exact amount, refuses a replay, and the hash checks out", async () => {
    const requirements = requirementsFor(agent(), 12.5);
    expect(requirements.amount).toBe("12500000");
    const { payload, authorization } = await signPayment(poster(), requirements);
    const [posterBefore, agentBefore, facilitatorBefore] = await Promise.all([
      balanceOf(poster().address),
      balanceOf(agent()),
      balanceOf(LOCAL_FACILITATOR_ADDRESS),
    ]);
    const blockBefore = await client.getBlockNumber({ cacheTime: 0 });

    const verified = await facilitator.verify(payload, requirements);
    expect(verified).toMatchObject({ isValid: true, payer: poster().address });

    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toMatchObject({
      success: true,
      network: "eip155:31337",
      payer: poster().address,
    });
    const txHash = settled.transaction as Hex;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);

    expect(await balanceOf(poster().address)).toBe(posterBefore - 12_500_000n);
    expect(await balanceOf(agent())).toBe(agentBefore + 12_500_000n);
    expect(await balanceOf(LOCAL_FACILITATOR_ADDRESS)).toBe(facilitatorBefore);
    const receipt = await client.getTransactionReceipt({ hash: txHash });
    expect(receipt.from.toLowerCase()).toBe(LOCAL_FACILITATOR_ADDRESS.toLowerCase());

    // Replay of the same signature.
    expect(await facilitator.verify(payload, requirements)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_nonce_already_used",
    });
    expect(await facilitator.settle(payload, requirements)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
    });
    expect(await balanceOf(poster().address)).toBe(posterBefore - 12_500_000n);

    // The receipt check.
    const expected = {
      txHash,
      asset: LOCAL_TOKEN_ADDRESS,
      from: poster().address,
      to: agent(),
      amountAtomic: usdcToAtomic(12.5),
    };
    expect(await verifyTransferReceipt(client, expected)).toEqual({
      ok: true,
      blockNumber: receipt.blockNumber,
    });
    expect(
      await verifyTransferReceipt(client, { ...expected, nonce: authorization.nonce }),
    ).toMatchObject({
      ok: true,
    });
    expect(await verifyTransferReceipt(client, { ...expected, amountAtomic: 12_500_001n })).toEqual(
      {
        ok: false,
        reason: "the transfer amount differs",
      },
    );
    expect(await verifyTransferReceipt(client, { ...expected, to: GANACHE_ADDRESSES[9] })).toEqual({
      ok: false,
      reason: "the transfer went to another address",
    });
    expect(
      await verifyTransferReceipt(client, { ...expected, from: GANACHE_ADDRESSES[9] }),
    ).toMatchObject({
      ok: false,
    });
    expect(
      await verifyTransferReceipt(client, { ...expected, nonce: toHex(randomBytes(32)) }),
    ).toMatchObject({
      ok: false,
    });
    expect(await verifyTransferReceipt(client, { ...expected, asset: MULTICALL3_ADDRESS })).toEqual(
      {
        ok: false,
        reason: "transaction did not touch the token",
      },
    );
    expect(
      await verifyTransferReceipt(client, { ...expected, txHash: toHex(randomBytes(32)) }),
    ).toEqual({
      ok: false,
      reason: "transaction not found or not yet mined",
    });

    // Reconciliation: the nonce was used, in this transaction. (Not viem's cached block number:
    // read within its polling interval of the one above, it misses the settlement's block.)
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    const lookup = {
      asset: LOCAL_TOKEN_ADDRESS,
      authorizer: poster().address,
      nonce: authorization.nonce,
      fromBlock: 0n,
      toBlock: latest,
      validBefore: authorization.validBefore,
    };
    expect(await findAuthorizationLog(client, lookup)).toEqual({ kind: "used", txHash });
    expect(await findAuthorizationLog(client, { ...lookup, fromBlock: blockBefore })).toEqual({
      kind: "used",
      txHash,
    });
    // A nonce the token never saw has no log: unknown, never "not paid".
    await expect(
      findAuthorizationLog(client, { ...lookup, nonce: toHex(randomBytes(32)) }),
    ).rejects.toThrow(AuthorizationLogNotFoundError);
    await expect(
      findAuthorizationLog(client, { ...lookup, fromBlock: receipt.blockNumber + 1n }),
    ).rejects.toThrow(AuthorizationLogNotFoundError);
  });

  it("refuses a wrong EIP-712 domain (e.g. Base USDC's), a wrong amount and another payee", async () => {
    const requirements = requirementsFor(agent(), 1);
    const baseDomain = await signPayment(poster(), requirements, {
      name: "USD Coin",
      version: "2",
    });
    expect(await facilitator.verify(baseDomain.payload, requirements)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_signature",
    });

    const { payload } = await signPayment(poster(), requirements);
    expect(await facilitator.verify(payload, requirementsFor(agent(), 2))).toMatchObject({
      isValid: false,
    });
    expect(
      await facilitator.verify(payload, requirementsFor(GANACHE_ADDRESSES[9], 1)),
    ).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_recipient_mismatch",
    });
  });

  it("refuses a payment larger than the balance", async () => {
    const requirements = requirementsFor(agent(), 20_000);
    const { payload } = await signPayment(account(5), requirements);
    expect(await facilitator.verify(payload, requirements)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_insufficient_balance",
    });
  });

  it("settles concurrent payments (facilitator nonces)", async () => {
    const payers = [account(2), account(3), account(4)];
    const payTo = account(6).address;
    const before = await balanceOf(payTo);
    const results = await Promise.all(
      payers.map(async (payer) => {
        const requirements = requirementsFor(payTo, 0.25);
        const { payload } = await signPayment(payer, requirements);
        return facilitator.settle(payload, requirements);
      }),
    );
    expect(results.map((r) => r.success)).toEqual([true, true, true]);
    expect(new Set(results.map((r) => r.transaction)).size).toBe(3);
    expect(await balanceOf(payTo)).toBe(before + 750_000n);
  });
});

describe("TestUSDC EIP-3009 details", () => {
  it("accepts the bytes-signature overload and records AuthorizationUsed", async () => {
    const payer = account(3);
    const payTo = account(4).address;
    const requirements = requirementsFor(payTo, 0.5);
    const { authorization, signature } = await signPayment(payer, requirements);
    const wallet = createWalletClient({
      account: account(7),
      chain: net.chain,
      transport: http(chain.rpcUrl),
    });
    const hash = await wallet.writeContract({
      address: LOCAL_TOKEN_ADDRESS,
      abi: testUsdcAbi,
      functionName: "transferWithAuthorization",
      args: [
        authorization.from,
        authorization.to,
        authorization.value,
        authorization.validAfter,
        authorization.validBefore,
        authorization.nonce,
        signature,
      ],
    });
    expect(
      await verifyTransferReceipt(client, {
        txHash: hash,
        asset: LOCAL_TOKEN_ADDRESS,
        from: payer.address,
        to: payTo,
        amountAtomic: 500_000n,
        nonce: authorization.nonce,
      }),
    ).toMatchObject({ ok: true });
    const { v, r, s } = parseSignature(signature);
    await expect(
      wallet.writeContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args: [
          authorization.from,
          authorization.to,
          authorization.value,
          authorization.validAfter,
          authorization.validBefore,
          authorization.nonce,
          Number(v),
          r,
          s,
        ],
      }),
    ).rejects.toThrow(/authorization is used or canceled/);
  });

  it("cancelAuthorization spends the nonce without a transfer (its log says canceled)", async () => {
    const payer = account(3);
    const nonce = toHex(randomBytes(32));
    const signature = await payer.signTypedData({
      domain: { ...net.eip712Domain, chainId: 31337, verifyingContract: LOCAL_TOKEN_ADDRESS },
      types: {
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: payer.address, nonce },
    });
    const wallet = createWalletClient({
      account: account(7),
      chain: net.chain,
      transport: http(chain.rpcUrl),
    });
    await wallet.writeContract({
      address: LOCAL_TOKEN_ADDRESS,
      abi: testUsdcAbi,
      functionName: "cancelAuthorization",
      args: [payer.address, nonce, signature],
    });
    expect(
      await client.readContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "authorizationState",
        args: [payer.address, nonce],
      }),
    ).toBe(true);
    expect(
      await findAuthorizationLog(client, {
        asset: LOCAL_TOKEN_ADDRESS,
        authorizer: payer.address,
        nonce,
        fromBlock: 0n,
        toBlock: await client.getBlockNumber({ cacheTime: 0 }),
        validBefore: 2n ** 64n,
      }),
    ).toEqual({ kind: "canceled" });
  });
});

describe("TestUSDC receiveWithAuthorization (EIP-3009)", () => {
  const receiveTypes = {
    ReceiveWithAuthorization: transferWithAuthorizationTypes.TransferWithAuthorization,
  } as const;

  async function signReceive(payer: PrivateKeyAccount, to: Address, value: bigint) {
    const now = BigInt((await client.getBlock()).timestamp);
    const authorization = {
      from: payer.address,
      to,
      value,
      validAfter: 0n,
      validBefore: now + 600n,
      nonce: toHex(randomBytes(32)),
    };
    const signature = await payer.signTypedData({
      domain: { ...net.eip712Domain, chainId: 31337, verifyingContract: LOCAL_TOKEN_ADDRESS },
      types: receiveTypes,
      primaryType: "ReceiveWithAuthorization",
      message: authorization,
    });
    return { authorization, signature };
  }

  const args = (a: Awaited<ReturnType<typeof signReceive>>["authorization"]) =>
    [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;

  it("has the EIP-3009 ReceiveWithAuthorization typehash", async () => {
    expect(
      await client.readContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "RECEIVE_WITH_AUTHORIZATION_TYPEHASH",
      }),
    ).toBe(
      keccak256(
        toBytes(
          "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
        ),
      ),
    );
  });

  it("moves the tokens when the payee submits it (both overloads), and records AuthorizationUsed", async () => {
    const payer = account(4);
    const payee = account(5);
    const wallet = createWalletClient({
      account: payee,
      chain: net.chain,
      transport: http(chain.rpcUrl),
    });
    const bytes = await signReceive(payer, payee.address, 700_000n);
    const split = await signReceive(payer, payee.address, 300_000n);
    const [payerBefore, payeeBefore] = await Promise.all([
      balanceOf(payer.address),
      balanceOf(payee.address),
    ]);

    const first = await wallet.writeContract({
      address: LOCAL_TOKEN_ADDRESS,
      abi: testUsdcAbi,
      functionName: "receiveWithAuthorization",
      args: [...args(bytes.authorization), bytes.signature],
    });
    const { v, r, s } = parseSignature(split.signature);
    const second = await wallet.writeContract({
      address: LOCAL_TOKEN_ADDRESS,
      abi: testUsdcAbi,
      functionName: "receiveWithAuthorization",
      args: [...args(split.authorization), Number(v), r, s],
    });
    for (const [hash, authorization] of [
      [first, bytes.authorization],
      [second, split.authorization],
    ] as const) {
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      const events = parseEventLogs({ abi: testUsdcAbi, logs: receipt.logs });
      expect(events.map((event) => [event.eventName, event.args])).toEqual([
        ["AuthorizationUsed", { authorizer: payer.address, nonce: authorization.nonce }],
        ["Transfer", { from: payer.address, to: payee.address, value: authorization.value }],
      ]);
    }
    expect(await balanceOf(payer.address)).toBe(payerBefore - 1_000_000n);
    expect(await balanceOf(payee.address)).toBe(payeeBefore + 1_000_000n);

    // Spent: neither overload takes it again.
    await expect(
      wallet.writeContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "receiveWithAuthorization",
        args: [...args(bytes.authorization), bytes.signature],
      }),
    ).rejects.toThrow(/authorization is used or canceled/);
  });

  it("refuses any caller but the payee, and a transferWithAuthorization signature", async () => {
    const payer = account(4);
    const payee = account(5);
    const { authorization, signature } = await signReceive(payer, payee.address, 1n);
    const stranger = createWalletClient({
      account: account(6),
      chain: net.chain,
      transport: http(chain.rpcUrl),
    });
    await expect(
      stranger.writeContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "receiveWithAuthorization",
        args: [...args(authorization), signature],
      }),
    ).rejects.toThrow(/caller must be the payee/);
    const { v, r, s } = parseSignature(signature);
    await expect(
      stranger.writeContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "receiveWithAuthorization",
        args: [...args(authorization), Number(v), r, s],
      }),
    ).rejects.toThrow(/caller must be the payee/);
    // A receive signature is not a transfer signature (different typehash).
    await expect(
      stranger.writeContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args: [...args(authorization), signature],
      }),
    ).rejects.toThrow(/invalid signature/);
    expect(
      await client.readContract({
        address: LOCAL_TOKEN_ADDRESS,
        abi: testUsdcAbi,
        functionName: "authorizationState",
        args: [payer.address, authorization.nonce],
      }),
    ).toBe(false);
  });
});

// @x402/fetch paying the product's own settle route: lib/payments/settle.test.ts (in-process)
// and tests/http/settlement.test.ts (over HTTP).
