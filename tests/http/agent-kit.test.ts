// The agent kit as an outside developer gets it: the client package packed (`npm pack`),
// installed from the tarball into a folder outside the repository with nothing but its declared
// dependencies (and the MCP SDK, which the MCP example imports), and every `js title=…` block
// of docs/agents.md run there as written, with plain `node`, against a test server on the local
// chain. Only the reader's own values come from the environment: the server's URL and keys.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  createMarketplaceClient,
  MarketplaceError,
  PaymentTermsError,
  payProposal,
} from "@agent-marketplace/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_NETWORK, LOCAL_TOKEN_ADDRESS, mintTestUsdc } from "@/dev/local-chain";
import { ApiClient } from "@/tests/helpers/api";
import { signedInClient } from "@/tests/helpers/fixtures";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { tokenReader } from "@/tests/helpers/x402";

const DOC = "docs/agents.md";
const run = promisify(execFile);

/** The page's runnable blocks: ```js title=<file>. */
export function titledExamples(markdown: string): Map<string, string> {
  return new Map(
    [...markdown.matchAll(/^```js title=(\S+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1]!, m[2]!]),
  );
}

let server: RunningServer;
let cleanup: () => Promise<void>;
let folder: string;
let tarball: string;

function installedVersion(name: string): string {
  return JSON.parse(fs.readFileSync(path.join("node_modules", name, "package.json"), "utf8"))
    .version;
}

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "agent-kit-"));
  // npm pack runs the package's prepack (tsup): the tarball is built from this checkout.
  // (Its stdout also carries the build's log: the tarball is found in the folder instead.)
  await run(
    "npm",
    ["pack", "--workspace", "@agent-marketplace/client", "--pack-destination", folder],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const packed = fs.readdirSync(folder).filter((file) => file.endsWith(".tgz"));
  expect(packed).toHaveLength(1);
  tarball = path.join(folder, packed[0]!);
  fs.writeFileSync(
    path.join(folder, "package.json"),
    JSON.stringify({ name: "agent-kit-check", private: true, type: "module" }),
  );
  await run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      tarball,
      `viem@${installedVersion("viem")}`,
      `@modelcontextprotocol/sdk@${installedVersion("@modelcontextprotocol/sdk")}`,
    ],
    { cwd: folder, maxBuffer: 16 * 1024 * 1024, timeout: 180_000 },
  );
  for (const [file, source] of titledExamples(fs.readFileSync(DOC, "utf8"))) {
    fs.writeFileSync(path.join(folder, file), source);
  }
  const database = await prepareServerDatabase("pglite");
  cleanup = database.cleanup;
  server = await startServer(database.env);
}, 400_000);

afterAll(async () => {
  await server?.stop();
  await cleanup?.();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

/** Runs one of the page's files with node in the install folder; its last stdout line, parsed. */
function example(file: string, env: Record<string, string>): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], {
      cwd: folder,
      env: { NODE_ENV: "production", PATH: process.env.PATH, MARKETPLACE_URL: server.url, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`${file} ended ${code ?? signal}\n${stdout}\n${stderr.slice(-3000)}`));
        return;
      }
      const last = stdout.trim().split("\n").at(-1) ?? "";
      resolve(JSON.parse(last) as Record<string, string>);
    });
  });
}

async function fundedWallet(usdc: bigint) {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  if (usdc > 0n) await mintTestUsdc(server.env.CHAIN_RPC_URL!, address, usdc * 1_000_000n);
  return { key, address };
}

/** A funded poster's open data job (3 USDC) with one 2.5 USDC bid from a new agent. */
async function postedBid() {
  const poster = await fundedWallet(10n);
  const posterApi = await new ApiClient(server.url, privateKeyToAccount(poster.key)).signIn();
  const operatorApi = await signedInClient(server.url);
  const job = await posterApi.post("/api/v1/jobs", {
    title: "Tabulate a CSV",
    description: "Ten rows.",
    category: "data",
    budgetUsdc: 3,
    timelineDays: 1,
  });
  const agent = await operatorApi.post("/api/v1/agents", { name: "Tables", categories: ["data"] });
  const bid = await operatorApi.post(`/api/v1/jobs/${job.body.data.id}/proposals`, {
    agentId: agent.body.data.id,
    bidUsdc: 2.5,
    etaDays: 1,
    message: "Done in an hour.",
  });
  return { poster, posterApi, operatorApi, job, bid };
}

describe(`${DOC}, from the packed client outside the repository`, () => {
  it("has the page's examples, and the tarball holds the built package only", async () => {
    expect([...titledExamples(fs.readFileSync(DOC, "utf8")).keys()]).toEqual([
      "agent.mjs",
      "poster.mjs",
      "upstream-pay.mjs",
      "mcp-poster.mjs",
    ]);
    const listing = await run("tar", ["-tzf", tarball]);
    const files = listing.stdout.trim().split("\n").sort();
    expect(files).toContain("package/dist/index.js");
    expect(files).toContain("package/dist/index.d.ts");
    expect(files.filter((file) => file.includes("/src/") || file.endsWith(".test.ts"))).toEqual([]);
    // The installed package resolves to its dist, not to this repository.
    const installed = fs.realpathSync(
      path.join(folder, "node_modules", "@agent-marketplace", "client"),
    );
    expect(installed.startsWith(folder)).toBe(true);
  });

  it("agent.mjs and poster.mjs: bid, protected payment, delivery, completion; the agent is paid", async () => {
    const agent = await fundedWallet(0n);
    const poster = await fundedWallet(10n);
    const balances = tokenReader(server.env.CHAIN_RPC_URL!);
    const [agentRun, posterRun] = await Promise.all([
      example("agent.mjs", { AGENT_PRIVATE_KEY: agent.key }),
      example("poster.mjs", { POSTER_PRIVATE_KEY: poster.key }),
    ]);
    expect(posterRun.completed).toBe(agentRun.delivered);
    const job = await new ApiClient(server.url).get(`/api/v1/jobs/${posterRun.completed}`);
    expect(job.body.data).toMatchObject({ status: "completed", assignedAgentId: agentRun.agentId });
    // The budget (5 USDC) was the bid; held in escrow, then released to the agent on completion.
    expect(await balances.balanceOf(agent.address)).toBe(5_000_000n);
    expect(await balances.balanceOf(poster.address)).toBe(5_000_000n);
  });

  it("upstream-pay.mjs: upstream x402 alone, with the spendControls the page gives, pays a bid", async () => {
    const { poster, posterApi, operatorApi, job, bid } = await postedBid();
    const settlement = await example("upstream-pay.mjs", {
      POSTER_PRIVATE_KEY: poster.key,
      JOB_ID: job.body.data.id,
      PROPOSAL_ID: bid.body.data.id,
      BID_USDC: "2.5",
      X402_NETWORK: LOCAL_NETWORK,
      USDC_ADDRESS: LOCAL_TOKEN_ADDRESS,
    });
    expect(settlement).toMatchObject({ amountUsdc: 2.5, payTo: operatorApi.account!.address });
    const accepted = await posterApi.post(`/api/v1/jobs/${job.body.data.id}/accept`, {
      proposalId: bid.body.data.id,
      txHash: settlement.txHash,
    });
    expect(accepted.status).toBe(200);
  });

  it("mcp-poster.mjs: a poster over MCP reads the delivered bytes and reviews; only the payment is signed outside", async () => {
    const agent = await fundedWallet(0n);
    const poster = await fundedWallet(10n);
    const balances = tokenReader(server.env.CHAIN_RPC_URL!);
    const [agentRun, posterRun] = await Promise.all([
      example("agent.mjs", { AGENT_PRIVATE_KEY: agent.key }),
      example("mcp-poster.mjs", { POSTER_PRIVATE_KEY: poster.key }),
    ]);
    expect(posterRun.completed).toBe(agentRun.delivered);
    expect(await balances.balanceOf(agent.address)).toBe(3_000_000n);
    const reviews = await new ApiClient(server.url).get(
      `/api/v1/reviews?agentId=${agentRun.agentId}`,
    );
    expect(reviews.body.data).toEqual([
      expect.objectContaining({ rating: 5, comment: "Read it over MCP." }),
    ]);
  });
});

describe("the client's payer refuses before anything moves", () => {
  it("a challenge over the caller's ceiling: PaymentTermsError, nothing signed or paid", async () => {
    const { poster, job, bid } = await postedBid();
    const client = createMarketplaceClient({ baseUrl: server.url });
    const ids = { jobId: job.body.data.id, proposalId: bid.body.data.id };
    const account = privateKeyToAccount(poster.key);
    await expect(payProposal(client, account, ids, { maxUsdc: 2.49 })).rejects.toThrow(
      PaymentTermsError,
    );
    expect(await tokenReader(server.env.CHAIN_RPC_URL!).balanceOf(poster.address)).toBe(
      10_000_000n,
    );
    const payment = await new ApiClient(server.url).get(`/api/v1/jobs/${ids.jobId}`);
    expect(payment.body.data.paymentTxHash).toBeNull();
  });

  it("the server's refusal: a MarketplaceError carrying its code (not the poster: wrong_payer)", async () => {
    const { job, bid } = await postedBid();
    const stranger = await fundedWallet(10n);
    const client = createMarketplaceClient({ baseUrl: server.url });
    const ids = { jobId: job.body.data.id, proposalId: bid.body.data.id };
    const refusal = await payProposal(client, privateKeyToAccount(stranger.key), ids, {
      maxUsdc: 2.5,
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(MarketplaceError);
    expect(refusal).toMatchObject({ status: 402, code: "wrong_payer" });
  });
});
