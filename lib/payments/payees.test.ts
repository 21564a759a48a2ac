// Payee consent, in-process on PGlite with the real local chain: an agent's payee other than
// its operator's own wallet takes effect only once that wallet signs (EIP-712; EIP-1271 for a
// contract wallet). Until then the agent cannot bid and the named wallet has no rights over
// it; forged, replayed, expired and other-agent signatures are refused.
import { describe, expect, it } from "@/tests/helpers/fixture";
import solc from "solc";
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  type Hex,
  type LocalAccount,
} from "viem";
import { DEPLOYER_PRIVATE_KEY, localChain } from "@/dev/local-chain";
import { agentWallets } from "@/lib/kernel/lifecycle";
import { getMyEarnings } from "./ledger/earnings";
import { recipientsOf } from "@/lib/kernel/notice-recipients";
import { sideOf } from "@/lib/conversations/participants";
import { privateKeyToAccount } from "viem/accounts";
import {
  agentInput,
  consentAsPayee,
  type InProcessMarket,
  jobInput,
  newWallet,
  proposalInput,
  seedPaidJob,
  settle,
  signedPayment,
} from "@/tests/helpers/in-process";
import { tokenReader } from "@/tests/helpers/x402";
import {
  consentToAgentPayee,
  getAgent,
  getPayeeConsentRequest,
  listAgentsOperatedBy,
  registerAgent,
  updateAgent,
} from "@/lib/marketplace/agents";
import { createJob } from "@/lib/marketplace/jobs";
import { submitProposal } from "@/lib/marketplace/proposals";

const poster = newWallet();
const operator = newWallet();

/** An agent of `operator` naming `payee` (not yet consenting), and an open job to bid on. */
async function namedPayee(market: InProcessMarket, payee: LocalAccount) {
  const agent = await registerAgent(
    market.db,
    operator.address,
    agentInput({ walletAddress: payee.address }),
  );
  const job = await createJob(market.db, poster.address, jobInput());
  return { agent, job };
}

/** The typed data of the agent's open request, signed by `signer`. */
async function signRequest(
  market: InProcessMarket,
  agentId: string,
  signer: LocalAccount,
  as: LocalAccount = operator,
) {
  const { typedData } = await getPayeeConsentRequest(market.db, as.address, agentId);
  return signer.signTypedData({
    ...typedData,
    message: { ...typedData.message, deadline: BigInt(typedData.message.deadline) },
  });
}

describe("before the named wallet consents", () => {
  it("the agent is paid nowhere and cannot bid (409 payee_consent_pending)", async ({ market }) => {
    const payee = newWallet();
    const { agent, job } = await namedPayee(market, payee);
    expect(agent).toMatchObject({ walletAddress: null, payeeConsentPending: true });
    await expect(
      submitProposal(market.db, operator.address, job.id, proposalInput(agent.id)),
    ).rejects.toMatchObject({ status: 409, code: "payee_consent_pending" });
  });

  it("the named wallet has no rights: not an operator, no thread side, no notices, no earnings", async ({
    market,
  }) => {
    const payee = newWallet();
    const { agent, job } = await namedPayee(market, payee);
    const row = await market.db.agent.findUniqueOrThrow({ where: { id: agent.id } });
    const wallets = agentWallets(row);
    expect(wallets).toEqual([operator.address]);
    // It cannot bid with the agent (it does not operate it) ...
    await expect(
      submitProposal(market.db, payee.address, job.id, proposalInput(agent.id)),
    ).rejects.toMatchObject({ status: 403 });
    // ... is no side of its threads, gets none of its notices, does not list it as its own ...
    expect(sideOf(payee.address, { posterAddress: poster.address, agentWallets: wallets })).toBe(
      null,
    );
    expect(
      recipientsOf("proposal.rejected", { posterAddress: poster.address, agentWallets: wallets }),
    ).toEqual([operator.address]);
    expect((await listAgentsOperatedBy(market.db, payee.address)).map((a) => a.id)).not.toContain(
      agent.id,
    );
  });

  it("a wallet named in place of a payee sees none of the agent's earnings until it consents", async ({
    market,
  }) => {
    const agent = await registerAgent(market.db, operator.address, agentInput());
    await seedPaidJob(market.db, {
      posterAddress: poster.address,
      agentId: agent.id,
      amountAtomic: 12_000_000n,
      status: "completed",
    });
    const payee = newWallet();
    await updateAgent(market.db, operator.address, agent.id, { walletAddress: payee.address });
    const earned = async () =>
      (await getMyEarnings(market.db, payee.address, { limit: 10 })).view.earned.byAgent.map(
        (entry) => entry.agentId,
      );
    expect(await earned()).not.toContain(agent.id);
    await consentAsPayee(market.db, payee, agent.id);
    expect(await earned()).toContain(agent.id);
  });

  it("only the operator and the named wallet may read the request (403 anyone else)", async ({
    market,
  }) => {
    const payee = newWallet();
    const { agent } = await namedPayee(market, payee);
    for (const who of [operator, payee]) {
      const request = await getPayeeConsentRequest(market.db, who.address, agent.id);
      expect(request).toMatchObject({
        agentId: agent.id,
        payeeAddress: payee.address,
        operatorAddress: operator.address,
      });
      expect(request.typedData.message).toMatchObject({
        agentId: agent.id,
        operator: operator.address,
        payee: payee.address,
      });
    }
    await expect(getPayeeConsentRequest(market.db, poster.address, agent.id)).rejects.toMatchObject(
      { status: 403 },
    );
  });
});

describe("the consent", () => {
  it("makes the wallet the payee: bids then pay it, on chain", async ({ market }) => {
    const payee = newWallet();
    const { agent, job } = await namedPayee(market, payee);
    expect(await consentAsPayee(market.db, payee, agent.id)).toMatchObject({
      walletAddress: payee.address,
      payeeConsentPending: false,
    });
    const bid = await submitProposal(market.db, payee.address, job.id, proposalInput(agent.id));
    expect(bid.payeeAddress).toBe(payee.address);
    const target = { jobId: job.id, proposalId: bid.id };
    const token = tokenReader(market.chain.rpcUrl);
    const before = await token.balanceOf(payee.address);
    await settle(market, target, await signedPayment(market, poster, target));
    expect((await token.balanceOf(payee.address)) - before).toBe(7_250_000n);
    // Now it operates the agent.
    expect((await listAgentsOperatedBy(market.db, payee.address)).map((a) => a.id)).toContain(
      agent.id,
    );
  });

  it("refuses a forged signature (another key), and the agent stays without payee", async ({
    market,
  }) => {
    const payee = newWallet();
    const { agent } = await namedPayee(market, payee);
    const forged = await signRequest(market, agent.id, newWallet());
    await expect(consentToAgentPayee(market.db, agent.id, forged)).rejects.toMatchObject({
      status: 403,
      code: "invalid_consent_signature",
    });
    // The operator signing for the payee is no consent either.
    const byOperator = await signRequest(market, agent.id, operator);
    await expect(consentToAgentPayee(market.db, agent.id, byOperator)).rejects.toMatchObject({
      code: "invalid_consent_signature",
    });
    expect(await getAgent(market.db, agent.id)).toMatchObject({ walletAddress: null });
  });

  it("refuses another agent's consent, even by the same wallet", async ({ market }) => {
    const payee = newWallet();
    const first = await namedPayee(market, payee);
    const second = await namedPayee(market, payee);
    const forFirst = await signRequest(market, first.agent.id, payee);
    await expect(consentToAgentPayee(market.db, second.agent.id, forFirst)).rejects.toMatchObject({
      code: "invalid_consent_signature",
    });
    expect(await getAgent(market.db, second.agent.id)).toMatchObject({ walletAddress: null });
  });

  it("serves one request only: replayed afterwards, or for a later request, it is refused", async ({
    market,
  }) => {
    const payee = newWallet();
    const { agent } = await namedPayee(market, payee);
    const signature = await signRequest(market, agent.id, payee);
    await consentToAgentPayee(market.db, agent.id, signature);
    // Replayed: nothing waits any more.
    await expect(consentToAgentPayee(market.db, agent.id, signature)).rejects.toMatchObject({
      status: 404,
      code: "no_pending_payee",
    });
    // The operator moves the payee to its own wallet, then names the same wallet again: the
    // old signature does not sign the new request (a new nonce).
    await updateAgent(market.db, operator.address, agent.id, {
      walletAddress: operator.address,
    });
    await updateAgent(market.db, operator.address, agent.id, { walletAddress: payee.address });
    await expect(consentToAgentPayee(market.db, agent.id, signature)).rejects.toMatchObject({
      code: "invalid_consent_signature",
    });
    expect(await getAgent(market.db, agent.id)).toMatchObject({
      walletAddress: operator.address,
      payeeConsentPending: true,
    });
  });

  it("refuses a request past its deadline (409 consent_expired)", async ({ market }) => {
    const payee = newWallet();
    const { agent } = await namedPayee(market, payee);
    const signature = await signRequest(market, agent.id, payee);
    await market.db.payeeConsent.updateMany({
      where: { agentId: agent.id, status: "pending" },
      data: { deadline: new Date(Date.now() - 1_000) },
    });
    await expect(consentToAgentPayee(market.db, agent.id, signature)).rejects.toMatchObject({
      status: 409,
      code: "consent_expired",
    });
  });

  it("two consents at once: one takes, the other finds nothing waiting", async ({ market }) => {
    const payee = newWallet();
    const { agent } = await namedPayee(market, payee);
    const signature = await signRequest(market, agent.id, payee);
    const results = await Promise.allSettled([
      consentToAgentPayee(market.db, agent.id, signature),
      consentToAgentPayee(market.db, agent.id, signature),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(
      await market.db.payeeConsent.count({ where: { agentId: agent.id, status: "consented" } }),
    ).toBe(1);
  });

  it("takes a contract wallet's consent through EIP-1271", async ({ market }) => {
    const owner = newWallet();
    const wallet = await deployOwnedWallet(market, owner.address);
    const agent = await registerAgent(
      market.db,
      operator.address,
      agentInput({ walletAddress: wallet }),
    );
    // The owner signs the request's typed data; the contract vouches for it.
    const signature = await signRequest(market, agent.id, owner);
    expect(await consentToAgentPayee(market.db, agent.id, signature)).toMatchObject({
      walletAddress: wallet,
    });
    // Another key's signature is not the contract's word.
    const other = await registerAgent(
      market.db,
      operator.address,
      agentInput({ walletAddress: wallet }),
    );
    await expect(
      consentToAgentPayee(market.db, other.id, await signRequest(market, other.id, newWallet())),
    ).rejects.toMatchObject({ code: "invalid_consent_signature" });
  });
});

/** A minimal EIP-1271 contract wallet that accepts its owner's ECDSA signatures. */
const OWNED_WALLET = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract OwnedWallet {
  address public immutable owner;
  constructor(address owner_) { owner = owner_; }
  function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
    if (signature.length != 65) return 0xffffffff;
    bytes32 r = bytes32(signature[0:32]);
    bytes32 s = bytes32(signature[32:64]);
    uint8 v = uint8(signature[64]);
    return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
  }
}`;

async function deployOwnedWallet(
  market: InProcessMarket,
  owner: `0x${string}`,
): Promise<`0x${string}`> {
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "OwnedWallet.sol": { content: OWNED_WALLET } },
        settings: {
          evmVersion: "paris",
          outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
        },
      }),
    ),
  );
  const compiled = output.contracts["OwnedWallet.sol"].OwnedWallet;
  const client = createWalletClient({
    account: privateKeyToAccount(DEPLOYER_PRIVATE_KEY),
    chain: localChain(market.chain.rpcUrl),
    transport: http(market.chain.rpcUrl),
  });
  const reader = createPublicClient({
    chain: localChain(market.chain.rpcUrl),
    transport: http(market.chain.rpcUrl),
    pollingInterval: 100,
  });
  const hash = await client.deployContract({
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}` as Hex,
    args: [owner],
  });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  return getAddress(receipt.contractAddress!);
}
