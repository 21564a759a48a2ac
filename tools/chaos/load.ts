// The simulated users: pairs of a poster and an agent, each with its own wallet, running the
// whole lifecycle again and again through the typed client (@agent-marketplace/client), as
// docs/agents.md tells a program to: post, bid, pay (now or protected, alternately), accept,
// deliver, complete with a review, with reads in between. A step that meets a fault is tried
// again the way a careful client would (after Retry-After; a write whose answer was lost is
// checked against the server's state before it is repeated), so that faults cost time, not
// lifecycles; a step refused for good abandons its lifecycle.
import {
  createMarketplaceClient,
  MarketplaceError,
  type MarketplaceClient,
  payProposal,
  PaymentTermsError,
  signIn,
  unwrap,
} from "@agent-marketplace/client";
import type { LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { mintTestUsdc } from "@/dev/local-chain";
import type { Recorder } from "./recorder";
import { seededRandom } from "../seeded-random";

/** Each poster is minted this much once, and again when it runs low. */
const MINT_ATOMIC = 1_000_000_000n; // 1,000 USDC
/** Payments are started at most this often, across all pairs (Load.pace). */
const PAY_EVERY_MS = 2_000;
/** A step given up after this long of faults. */
const STEP_DEADLINE_MS = 120_000;

export interface LoadStats {
  lifecycles: { started: number; completed: number; abandoned: number };
  byMode: Record<"now" | "escrow", number>;
  abandonReasons: Map<string, number>;
  /** Every poster wallet: the end check reads their transfers on chain. */
  payers: Set<string>;
  /** Seconds payments waited for the local chain's clock to come back near the wall clock. */
  clockWaitSeconds: number;
  /** The most the local chain's clock was seen ahead of the wall clock, in seconds. */
  chainAheadSeconds: number;
}

export interface Actor {
  account: LocalAccount;
  client: MarketplaceClient;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A refusal that waiting will not change (a 4xx other than 408 and 429). */
function isFinal(error: unknown) {
  return (
    error instanceof PaymentTermsError ||
    (error instanceof MarketplaceError &&
      error.status >= 400 &&
      error.status < 500 &&
      error.status !== 408 &&
      error.status !== 429)
  );
}

class Abandon extends Error {}

/**
 * Runs `step` until it succeeds; between tries waits Retry-After (at most 5 s) or a second.
 * A final refusal goes to `onFinal` (which may find the step done after all) or abandons.
 */
async function persist<T>(
  what: string,
  step: () => Promise<T>,
  onFinal?: (error: MarketplaceError | PaymentTermsError) => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + STEP_DEADLINE_MS;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (isFinal(error)) {
        const settled = await onFinal?.(error as MarketplaceError);
        if (settled !== undefined) return settled;
        const code = error instanceof MarketplaceError ? `${error.status} ${error.code}` : "terms";
        throw new Abandon(`${what}: ${code}`);
      }
      if (Date.now() > deadline) throw new Abandon(`${what}: still failing after 120 s`);
      const retryAfter = error instanceof MarketplaceError ? error.retryAfterSeconds : undefined;
      await sleep(Math.min(5_000, (retryAfter ?? 1) * 1000));
    }
  }
}

export interface LoadOptions {
  recorder: Recorder;
  /** The one public origin (APP_URL): SIWE messages are signed for it. */
  appUrl: string;
  rpcUrl: string;
  clients: number;
  seed: number;
}

export class Load {
  readonly stats: LoadStats = {
    lifecycles: { started: 0, completed: 0, abandoned: 0 },
    byMode: { now: 0, escrow: 0 },
    abandonReasons: new Map(),
    payers: new Set(),
    clockWaitSeconds: 0,
    chainAheadSeconds: 0,
  };
  private running = false;
  private actors = 0;
  /** When the next payment may start: payments are paced for the local chain (below). */
  private nextPayAt = 0;
  /** What each pair is doing now, and since when: a pair stuck on one step shows in the log. */
  readonly doing = new Map<number, { step: string; since: number }>();
  private loops: Promise<void>[] = [];

  constructor(private readonly options: LoadOptions) {}

  /** A signed-in actor with a fresh wallet. */
  async actor(name: string): Promise<Actor> {
    const account = privateKeyToAccount(generatePrivateKey());
    const client = createMarketplaceClient({
      baseUrl: this.options.appUrl,
      fetch: this.options.recorder.fetchFor(name, seededRandom(this.options.seed + this.actors++)),
    });
    await persist(`${name} sign-in`, () =>
      signIn(client, account, { baseUrl: this.options.appUrl, chainId: 31337 }),
    );
    return { account, client };
  }

  async start() {
    this.running = true;
    for (let i = 0; i < this.options.clients; i++) {
      this.loops.push(this.pair(i));
    }
  }

  /** Stops starting lifecycles; the ones under way finish (or are abandoned) first. */
  async stop() {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async pair(index: number) {
    const rand = seededRandom(this.options.seed + index * 7919);
    const think = () => sleep(150 + rand() * 500);
    let poster: Actor;
    let agent: Actor;
    let agentId: string;
    try {
      poster = await this.actor(`poster-${index}`);
      agent = await this.actor(`agent-${index}`);
      this.stats.payers.add(poster.account.address.toLowerCase());
      await persist("mint", () =>
        mintTestUsdc(this.options.rpcUrl, poster.account.address, MINT_ATOMIC),
      );
      agentId = (
        await persist("register agent", () =>
          unwrap(
            agent.client.POST("/api/v1/agents", {
              body: {
                name: `Chaos agent ${index}`,
                description: "Simulated",
                categories: ["data"],
              },
            }),
          ),
        )
      ).id;
    } catch (error) {
      this.abandon(`setup: ${error instanceof Error ? error.message : error}`);
      return;
    }
    let spent = 0n;
    for (let n = 0; this.running; n++) {
      const mode = n % 2 === 0 ? "now" : "escrow";
      this.stats.lifecycles.started++;
      try {
        if (spent > MINT_ATOMIC - 50_000_000n) {
          await persist("mint", () =>
            mintTestUsdc(this.options.rpcUrl, poster.account.address, MINT_ATOMIC),
          );
          spent = 0n;
        }
        const bidUsdc = Math.round((1 + rand() * 9) * 100) / 100;
        const mark = (step: string) => {
          if (this.doing.get(index)?.step !== step)
            this.doing.set(index, { step, since: Date.now() });
        };
        await this.lifecycle(poster, agent, agentId, mode, bidUsdc, think, mark);
        spent += BigInt(Math.round(bidUsdc * 1e6));
        this.stats.lifecycles.completed++;
        this.stats.byMode[mode]++;
      } catch (error) {
        if (!(error instanceof Abandon)) throw error;
        this.abandon(error.message);
      }
      this.doing.delete(index);
      await think();
    }
  }

  /** Pairs on one step for more than `ms`, for the progress log. */
  stuck(ms = 30_000): string[] {
    const now = Date.now();
    return [...this.doing.entries()]
      .filter(([, d]) => now - d.since > ms)
      .map(([i, d]) => `pair ${i} on "${d.step}" for ${((now - d.since) / 1000).toFixed(0)} s`);
  }

  private abandon(reason: string) {
    this.stats.lifecycles.abandoned++;
    this.stats.abandonReasons.set(reason, (this.stats.abandonReasons.get(reason) ?? 0) + 1);
  }

  private async lifecycle(
    poster: Actor,
    agent: Actor,
    agentId: string,
    mode: "now" | "escrow",
    bidUsdc: number,
    think: () => Promise<unknown>,
    mark: (step: string) => void,
  ) {
    mark("post job");
    const job = await persist("post job", () =>
      unwrap(
        poster.client.POST("/api/v1/jobs", {
          body: {
            title: "A chaos-run job",
            description: "Posted by the chaos run's simulated poster.",
            category: "data",
            budgetUsdc: 10,
            timelineDays: 2,
            requirements: ["One file"],
          },
        }),
      ),
    );
    const path = { params: { path: { id: job.id } } };
    await think();
    mark("list jobs");
    await persist("list jobs", () =>
      unwrap(
        agent.client.GET("/api/v1/jobs", { params: { query: { status: "open", limit: 20 } } }),
      ),
    );
    const findOwnBid = async () =>
      (
        await unwrap(
          agent.client.GET("/api/v1/jobs/{id}/proposals", {
            params: { path: { id: job.id }, query: { status: "pending" } },
          }),
        )
      ).find((p) => p.agentId === agentId);
    mark("bid");
    const bid = await persist(
      "bid",
      () =>
        unwrap(
          agent.client.POST("/api/v1/jobs/{id}/proposals", {
            ...path,
            body: { agentId, bidUsdc, etaDays: 1, message: "Simulated bid" },
          }),
        ),
      // A bid whose answer was lost: it is there already.
      async (error) =>
        error instanceof MarketplaceError && error.status === 409 ? findOwnBid() : undefined,
    );
    await think();
    const txHash = await this.pay(poster, job.id, bid.id, bid.payeeAddress, mode, mark);
    await think();
    const jobNow = () => unwrap(poster.client.GET("/api/v1/jobs/{id}", path));
    mark("accept");
    await persist(
      "accept",
      () =>
        unwrap(
          poster.client.POST("/api/v1/jobs/{id}/accept", {
            ...path,
            body: { proposalId: bid.id, txHash },
          }),
        ),
      async () => {
        const now = await jobNow();
        return now.acceptedProposalId === bid.id ? now : undefined;
      },
    );
    await think();
    mark("read job");
    await persist("read job", () => unwrap(agent.client.GET("/api/v1/jobs/{id}", path)));
    const text = `# Delivery for ${job.id}\n\nDone.\n`;
    const file = {
      name: "delivery.md",
      type: "text/markdown",
      size: Buffer.byteLength(text),
      dataUrl: `data:text/markdown;base64,${Buffer.from(text).toString("base64")}`,
    };
    mark("deliver");
    await persist(
      "deliver",
      () =>
        unwrap(
          agent.client.POST("/api/v1/jobs/{id}/deliver", {
            ...path,
            body: { attachments: [file] },
          }),
        ),
      async () => {
        const now = await jobNow();
        return ["delivered", "completed"].includes(now.status) ? now : undefined;
      },
    );
    await think();
    mark("complete");
    await persist(
      "complete",
      () =>
        unwrap(
          poster.client.POST("/api/v1/jobs/{id}/complete", {
            ...path,
            body: { rating: 5, comment: "Simulated review." },
          }),
        ),
      async () => {
        const now = await jobNow();
        return now.status === "completed" ? now : undefined;
      },
    );
    mark("events");
    await persist("events", () =>
      unwrap(agent.client.GET("/api/v1/events", { params: { query: { jobId: job.id } } })),
    );
  }

  /**
   * One payment starts every PAY_EVERY_MS across all pairs: with its escrow capture that is
   * under a transaction a second, which the local chain mines without its clock running ahead
   * (below); the rest of the lifecycle is not paced.
   */
  private async pace() {
    const at = Math.max(Date.now(), this.nextPayAt);
    this.nextPayAt = at + PAY_EVERY_MS;
    if (at > Date.now()) await sleep(at - Date.now());
  }

  /**
   * The local chain mines a block per transaction, each at least a second after the last, so
   * above one transaction a second its clock runs ahead of the wall clock, and an
   * authorization signed for the next 5 minutes of the wall clock expires early on chain (Base
   * puts many transactions in a block every 2 s and has no such drift). A payment waits (30 s
   * at most) while the chain is more than 90 s ahead; the waits and the largest lead are
   * reported.
   */
  private async waitForChainClock() {
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      let ahead = 0;
      try {
        const response = await fetch(this.options.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "eth_getBlockByNumber",
            params: ["latest", false],
          }),
          signal: AbortSignal.timeout(5_000),
        });
        const block = (await response.json()) as { result?: { timestamp: string } };
        ahead = Number(block.result?.timestamp ?? 0) - Date.now() / 1000;
      } catch {
        return; // the chain is down: the payment meets that fault as it is
      }
      this.stats.chainAheadSeconds = Math.max(this.stats.chainAheadSeconds, ahead);
      if (ahead <= 90) return;
      this.stats.clockWaitSeconds += 5;
      await sleep(5_000);
    }
  }

  /**
   * Pays the bid; a payment whose outcome is unknown (no answer, a final refusal) is read back
   * from the job's payment before anything is signed again: settled, it is taken; pending, it
   * is waited for (the reconciler decides it); failed or absent, paid again.
   */
  private async pay(
    poster: Actor,
    jobId: string,
    proposalId: string,
    payTo: string,
    mode: "now" | "escrow",
    mark: (step: string) => void,
  ): Promise<string> {
    const deadline = Date.now() + 3 * STEP_DEADLINE_MS;
    const readPayment = () =>
      unwrap(poster.client.GET("/api/v1/jobs/{id}/payment", { params: { path: { id: jobId } } }));
    for (;;) {
      if (Date.now() > deadline) throw new Abandon("pay: not settled within 6 minutes");
      const payment = await persist("read payment", readPayment);
      if (payment?.status === "succeeded" && payment.proposalId === proposalId && payment.txHash) {
        return payment.txHash;
      }
      if (payment?.status === "pending") {
        mark(`pay (${mode}): waiting for settlement of job ${jobId} to leave pending`);
        await sleep(2_000);
        continue;
      }
      mark(`pay (${mode})`);
      await this.pace();
      await this.waitForChainClock();
      try {
        const settled = await payProposal(
          poster.client,
          poster.account,
          { jobId, proposalId },
          { mode, maxUsdc: 10, payTo, retryDelayMs: 1_000 },
        );
        return settled.txHash;
      } catch (error) {
        if (error instanceof PaymentTermsError) throw new Abandon(`pay: ${error.message}`);
        if (
          error instanceof MarketplaceError &&
          error.status < 500 &&
          !["settlement_pending", "already_paid", "payment_in_progress"].includes(
            error.code ?? "",
          ) &&
          error.status !== 409 &&
          error.status !== 429
        ) {
          throw new Abandon(`pay: ${error.status} ${error.code}`);
        }
        await sleep(1_000);
      }
    }
  }
}
