// Editing an agent's profile (PATCH /api/v1/agents/:id), in-process on PGlite with the real
// local chain and the in-process facilitator. Who may edit, what is validated, and the money
// rule: a payee change never redirects a bid already made (its payment goes to the wallet the
// bid was made with), while bids made after it pay the new wallet.
import { describe, expect, it } from "@/tests/helpers/fixture";
import type { LocalAccount } from "viem";
import { toPublicError } from "@/lib/platform/errors";
import { settleJobPayment } from "@/lib/payments/settle/settle";
import { updateAgentSchema } from "@/lib/shared/schemas/agents";
import {
  agentInput,
  consentAsPayee,
  type InProcessMarket,
  jobInput,
  jobWithBid,
  newWallet,
  proposalInput,
  resourceUrl,
  settle,
  signedPayment,
} from "@/tests/helpers/in-process";
import { tokenReader } from "@/tests/helpers/x402";
import { getAgent, registerAgent, updateAgent } from "./agents";
import { createJob } from "./jobs";
import { listProposals, submitProposal } from "./proposals";
import { acceptProposal } from "./transitions";

const poster = newWallet();
const operator = newWallet();

/** The status and message a call fails with, as the route would answer them. */
async function failure(call: () => unknown) {
  try {
    await call();
  } catch (error) {
    const { status, message } = toPublicError(error, "test");
    return { status, message };
  }
  throw new Error("expected a failure");
}

/** The body as the route parses it (the same schema), then the edit. */
const edit = (market: InProcessMarket, caller: LocalAccount, id: string, body: unknown) =>
  updateAgent(market.db, caller.address, id, updateAgentSchema.parse(body));

async function challengePayTo(
  market: InProcessMarket,
  target: { jobId: string; proposalId: string },
) {
  const outcome = await settleJobPayment(market.db, {
    ...target,
    paymentHeader: null,
    resourceUrl: resourceUrl(target),
  });
  if (outcome.kind !== "payment_required") throw new Error("expected a payment challenge");
  return outcome.paymentRequired.accepts[0]!.payTo;
}

describe("updateAgent", () => {
  it.for([
    ["name", { name: "  Renamed agent  " }, { name: "Renamed agent" }],
    ["description", { description: "Now with tables." }, { description: "Now with tables." }],
    ["description (emptied)", { description: "" }, { description: "" }],
    ["categories", { categories: ["data", "writing"] }, { categories: ["data", "writing"] }],
  ] as const)(
    "lets the operator edit the %s and leaves the rest",
    async ([_, body, expected], { market }) => {
      const agent = await registerAgent(
        market.db,
        operator.address,
        agentInput({ description: "Reads papers." }),
      );
      const edited = await edit(market, operator, agent.id, body);
      expect(edited).toEqual({ ...agent, ...expected });
      expect(await getAgent(market.db, agent.id)).toEqual(edited);
    },
  );

  it("changes the payee wallet (checksummed) once that wallet consents; until then the old one stays", async ({
    market,
  }) => {
    const agent = await registerAgent(market.db, operator.address, agentInput());
    const payee = newWallet();
    const edited = await edit(market, operator, agent.id, {
      walletAddress: payee.address.toLowerCase(),
    });
    expect(edited).toMatchObject({
      walletAddress: operator.address,
      payeeConsentPending: true,
      operatorAddress: operator.address,
    });
    expect(await consentAsPayee(market.db, payee, agent.id)).toMatchObject({
      walletAddress: payee.address,
      payeeConsentPending: false,
    });
  });

  it("takes the operator's own wallet back as payee at once, dropping a pending request", async ({
    market,
  }) => {
    const agent = await registerAgent(
      market.db,
      operator.address,
      agentInput({ walletAddress: newWallet().address }),
    );
    expect(agent).toMatchObject({ walletAddress: null, payeeConsentPending: true });
    expect(
      await edit(market, operator, agent.id, { walletAddress: operator.address }),
    ).toMatchObject({
      walletAddress: operator.address,
      payeeConsentPending: false,
    });
  });

  it("refuses anyone but the operator, even the agent's payee wallet (403)", async ({ market }) => {
    const payee = newWallet();
    const agent = await registerAgent(
      market.db,
      operator.address,
      agentInput({ walletAddress: payee.address }),
    );
    for (const caller of [payee, poster, newWallet()]) {
      expect(await failure(() => edit(market, caller, agent.id, { name: "Mine now" }))).toEqual({
        status: 403,
        message: "only the agent's operator can edit it",
      });
    }
    expect((await getAgent(market.db, agent.id)).name).toBe("Agent");
  });

  it("answers 404 for an unknown agent", async ({ market }) => {
    for (const id of ["agent_doesnotexist00000000", "nope"]) {
      expect(await failure(() => edit(market, operator, id, { name: "X" }))).toMatchObject({
        status: 404,
      });
    }
  });

  it.for([
    ["an empty patch", {}, "give at least one of: name, description, categories, walletAddress"],
    [
      "only unknown fields",
      { rating: 5 },
      "give at least one of: name, description, categories, walletAddress",
    ],
    ["an empty name", { name: "   " }, "name must not be empty"],
    ["a two-line name", { name: "a\nb" }, "name contains characters that are not allowed"],
    ["a long name", { name: "x".repeat(500) }, "name must be at most"],
    ["no categories", { categories: [] }, "categories must name at least one category"],
    ["a repeated category", { categories: ["data", "data"] }, "categories must not repeat"],
    ["an unknown category", { categories: ["cooking"] }, "category"],
    ["a bad wallet", { walletAddress: "0x123" }, "not a valid wallet address"],
    ["a null description", { description: null }, "description must be a string"],
  ] as const)(
    "refuses %s with the schema's message (400)",
    async ([_, body, message], { market }) => {
      const agent = await registerAgent(market.db, operator.address, agentInput());
      const refused = await failure(() => edit(market, operator, agent.id, body));
      expect(refused.status).toBe(400);
      expect(refused.message).toContain(message);
      expect(await getAgent(market.db, agent.id)).toEqual(agent);
    },
  );
});

describe("a payee change and the bids already made", () => {
  it("pays an earlier bid to the wallet it was made with; later bids pay the new wallet", async ({
    market,
  }) => {
    const { job, agent, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    expect(proposal.payeeAddress).toBe(operator.address);
    const newPayee = newWallet();
    await edit(market, operator, agent.id, { walletAddress: newPayee.address });
    await consentAsPayee(market.db, newPayee, agent.id);

    // The earlier bid: the challenge, the transfer and accept's ledger check say the old payee.
    const target = { jobId: job.id, proposalId: proposal.id };
    expect(await challengePayTo(market, target)).toBe(operator.address);
    const [listed] = (await listProposals(market.db, job.id, { status: "all", limit: 10 })).items;
    expect(listed?.payeeAddress).toBe(operator.address);
    const token = tokenReader(market.chain.rpcUrl);
    const header = await signedPayment(market, poster, target);
    const before = await Promise.all([operator, newPayee].map((a) => token.balanceOf(a.address)));
    const txHash = await settle(market, target, header);
    const after = await Promise.all([operator, newPayee].map((a) => token.balanceOf(a.address)));
    expect(after[0]! - before[0]!).toBe(7_250_000n);
    expect(after[1]!).toBe(before[1]!);
    const accepted = await acceptProposal(market.db, poster.address, job.id, {
      proposalId: proposal.id,
      txHash,
    });
    expect(accepted).toMatchObject({ status: "in_progress", paymentTxHash: txHash });

    // A bid made after the change names the new payee.
    const next = await createJob(market.db, poster.address, jobInput());
    const bid = await submitProposal(market.db, operator.address, next.id, proposalInput(agent.id));
    expect(bid.payeeAddress).toBe(newPayee.address);
    expect(await challengePayTo(market, { jobId: next.id, proposalId: bid.id })).toBe(
      newPayee.address,
    );
  });

  it("refuses a payment signed to the agent's new wallet for a bid made before the change", async ({
    market,
  }) => {
    const { job, agent, proposal } = await jobWithBid(market.db, poster.address, operator.address);
    const newPayee = newWallet();
    await edit(market, operator, agent.id, { walletAddress: newPayee.address });
    await consentAsPayee(market.db, newPayee, agent.id);
    const target = { jobId: job.id, proposalId: proposal.id };
    const header = await signedPayment(market, poster, target, {
      signed: { to: newPayee.address },
      sent: { to: newPayee.address },
    });
    const outcome = await settleJobPayment(market.db, {
      ...target,
      paymentHeader: header,
      resourceUrl: resourceUrl(target),
    });
    expect(outcome).toMatchObject({
      kind: "payment_required",
      code: "invalid_exact_evm_payload_recipient_mismatch",
    });
  });
});
