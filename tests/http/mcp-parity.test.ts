// MCP parity for programs that speak only MCP: a whole job driven by the SDK's own Client over
// Streamable HTTP, as the poster and as the agent (find, bid, talk, deliver files, read the
// delivered bytes back, complete with a review, see the earnings; paying stays x402 through
// the test helper), every answer checked against the tool's advertised outputSchema; the
// arguments typed as JSON (booleans, numbers), the poster filter beside its HTTP twin, and the
// resources and prompts the server offers.
import fs from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { TokenScope } from "@/lib/shared/enums";
import { ApiClient } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import { BUSY_TEST_SERVER_ENV, expectStatus, validJobBody } from "@/tests/helpers/fixtures";
import { payFor, type PaymentTarget } from "@/tests/helpers/market";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

/** A file over what get_attachment answers (about 1.5 MiB), under the 5 MiB a delivery takes. */
const LARGE_FILE_BYTES = 1_600_000;

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString("base64")}`;

describe.each(DB_KINDS)("MCP parity over HTTP on %s", (kind) => {
  let server: RunningServer;
  let market: PaymentTarget;
  let cleanup: () => Promise<void>;
  let poster: ApiClient;
  let operator: ApiClient;
  let stranger: ApiClient;
  const clients: Client[] = [];
  // Every tool's outputSchema, compiled by our own validator besides the SDK client's.
  const validators = new Map<string, ValidateFunction>();
  let tools: Tool[] = [];

  async function tokenOf(client: ApiClient, scopes: TokenScope[]) {
    return expectStatus(
      await client.post("/api/v1/tokens", { name: "mcp", scopes }),
      200,
      "create token",
    ).data.token as string;
  }

  /** A connected client that has listed the tools (the SDK checks answers only after that). */
  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: "parity-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    tools = (await client.listTools()).tools;
    return client;
  }

  /** A tool's structured answer, checked against its outputSchema whether it succeeded or not. */
  async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
    const result = await client.callTool({ name, arguments: args });
    const validate = validators.get(name)!;
    expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
    return { isError: result.isError === true, data: result.structuredContent as any };
  }

  async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
    const outcome = await call(client, name, args);
    if (outcome.isError) throw new Error(`${name} refused: ${JSON.stringify(outcome.data)}`);
    return outcome.data;
  }

  beforeAll(async () => {
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    server = await startServer({ ...database.env, ...BUSY_TEST_SERVER_ENV });
    market = { chain: { rpcUrl: inject("testChainRpcUrl") }, server };
    const signIn = () =>
      new ApiClient(server.url, privateKeyToAccount(generatePrivateKey())).signIn();
    [poster, operator, stranger] = await Promise.all([signIn(), signIn(), signIn()]);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await server?.stop();
    await cleanup?.();
  });

  it("advertises every tool's outputSchema, derived from what its route answers", async () => {
    await connect(await tokenOf(stranger, ["read"]));
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      validators.set(tool.name, ajv.compile(tool.outputSchema!));
    }
    // Strict enough to catch a wrong answer: a job without its fields, an unknown field.
    expect(validators.get("get_job")!({ job: { id: "job_1" } })).toBe(false);
    expect(
      validators.get("my_work")!({ posted: [], agents: [], assigned: [], bids: [], x: 1 }),
    ).toBe(false);
    expect(validators.get("my_work")!({ posted: [], agents: [], assigned: [], bids: [] })).toBe(
      true,
    );
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    // JSON-typed arguments: a query's "true"/"false" is a boolean, its numbers numbers.
    expect(byName.get("list_notifications")!.inputSchema.properties).toMatchObject({
      unread: { type: "boolean" },
      limit: { type: "integer", minimum: 1, maximum: 100 },
    });
    expect(JSON.stringify(tools.map((tool) => tool.inputSchema))).not.toMatch(
      /"enum":\["(true|false)","(true|false)"\]/,
    );
    expect(byName.get("search_jobs")!.inputSchema.properties).toHaveProperty("poster");
    expect(byName.get("get_attachment")).toMatchObject({
      inputSchema: { required: ["jobId", "attachmentId"] },
      annotations: { readOnlyHint: true },
      _meta: { scope: "read" },
    });
  });

  it("does a whole job as the poster and as the agent, answers matching their schemas", async () => {
    const posterSide = await connect(await tokenOf(poster, ["read", "post", "review"]));
    const agentSide = await connect(await tokenOf(operator, ["read", "bid", "deliver"]));
    const outsider = await connect(await tokenOf(stranger, ["read"]));

    const { agent } = await ok(agentSide, "register_agent", {
      name: "Parity",
      categories: ["data"],
    });
    const { job } = await ok(posterSide, "post_job", validJobBody({ budgetUsdc: 25 }));

    // Find: by the poster's wallet (any case), the same page as the HTTP list gives.
    const address = poster.account!.address;
    const found = await ok(agentSide, "search_jobs", {
      status: "open",
      poster: address.toLowerCase(),
      limit: 5,
    });
    expect(found).toEqual({ jobs: [job], nextCursor: null });
    const http = await new ApiClient(server.url).get(`/api/v1/jobs?status=open&poster=${address}`);
    expect(http.body).toEqual({ data: [job], meta: { nextCursor: null } });
    const badPoster = await call(agentSide, "search_jobs", { poster: "0x1234" });
    expect(badPoster.data).toEqual({
      error: "poster is not a valid wallet address",
      status: 400,
      code: "invalid_request",
    });

    // Bid, and talk on the bid.
    const { proposal } = await ok(agentSide, "submit_proposal", {
      jobId: job.id,
      agentId: agent.id,
      bidUsdc: 6.5,
      etaDays: 3,
      message: "Clean tables by Tuesday.",
    });
    const thread = { jobId: job.id, proposalId: proposal.id };
    await ok(agentSide, "send_message", { ...thread, body: "CSV or XLSX?" });
    const { messages } = await ok(posterSide, "list_messages", thread);
    expect(messages.map((message: { body: string }) => message.body)).toEqual(["CSV or XLSX?"]);
    await ok(posterSide, "send_message", { ...thread, body: "CSV, please." });

    // The poster's own work: its posted job waits on a bid.
    const posterWork = await ok(posterSide, "my_work", { limit: 10 });
    expect(posterWork.posted).toEqual([{ job, group: "proposals_waiting", pendingProposals: 1 }]);

    // JSON booleans and numbers, read as the query's text is.
    const unread = await ok(agentSide, "list_notifications", { unread: true, limit: 10 });
    expect(unread.notifications.length).toBeGreaterThan(0);
    expect(unread.notifications.every((item: { read: boolean }) => !item.read)).toBe(true);
    const all = await ok(agentSide, "list_notifications", { unread: false, limit: 1 });
    expect(all.notifications).toHaveLength(1);
    expect((await call(agentSide, "list_notifications", { unread: "maybe" })).data.error).toBe(
      "unread must be true or false",
    );

    // Pay (x402, signed by the poster's wallet, never a tool), accept, deliver.
    const txHash = await payFor(market, poster, job.id, proposal.id);
    await ok(posterSide, "accept_proposal", { jobId: job.id, proposalId: proposal.id, txHash });
    const binary = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256));
    const large = Buffer.alloc(LARGE_FILE_BYTES, 7);
    const delivered = await ok(agentSide, "deliver_job", {
      jobId: job.id,
      text: "Tables attached — see notes.",
      attachments: [
        {
          name: "tables.bin",
          size: binary.length,
          type: "application/octet-stream",
          dataUrl: dataUrl("application/octet-stream", binary),
        },
        {
          name: "raw.bin",
          size: large.length,
          type: "application/octet-stream",
          dataUrl: dataUrl("application/octet-stream", large),
        },
      ],
    });
    const [tables, raw, notes] = delivered.job.attachments as { id: string; name: string }[];

    // Read the delivered bytes back, as the poster (and the agent); not as a stranger.
    const read = (client: Client, attachmentId: string) =>
      call(client, "get_attachment", { jobId: job.id, attachmentId });
    const tablesAnswer = await ok(posterSide, "get_attachment", {
      jobId: job.id,
      attachmentId: tables!.id,
    });
    expect(tablesAnswer.attachment).toMatchObject({
      id: tables!.id,
      name: "tables.bin",
      size: 300,
      type: "application/octet-stream",
    });
    expect(Buffer.from(tablesAnswer.attachment.base64, "base64").equals(binary)).toBe(true);
    const notesAnswer = (await read(agentSide, notes!.id)).data.attachment;
    expect(notesAnswer).toMatchObject({ name: "delivery.txt", type: "text/plain" });
    expect(Buffer.from(notesAnswer.base64, "base64").toString()).toBe(
      "Tables attached — see notes.",
    );
    expect((await read(outsider, tables!.id)).data).toMatchObject({
      status: 403,
      code: "not_job_party",
    });
    expect((await read(posterSide, "att_nope")).data).toMatchObject({
      status: 404,
      code: "attachment_not_found",
    });
    // Past the answer bound: a JSON-RPC error with a stable code, naming the HTTP download.
    const tooLarge = await read(posterSide, raw!.id).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(tooLarge).toBeInstanceOf(McpError);
    expect(tooLarge).toMatchObject({ code: -32010, data: { code: "answer_too_large" } });
    expect((tooLarge as Error).message).toContain(`/api/v1/jobs/${job.id}/attachments/${raw!.id}`);

    // Complete with a review; the agent sees it and what it earned.
    const completed = await ok(posterSide, "complete_job", {
      jobId: job.id,
      rating: 4,
      comment: "Tidy tables",
    });
    expect(completed.job.status).toBe("completed");
    const { reviews } = await ok(agentSide, "list_reviews", { agentId: agent.id });
    expect(reviews).toEqual([expect.objectContaining({ jobId: job.id, rating: 4 })]);
    const { earnings } = await ok(agentSide, "my_earnings", { limit: 5 });
    expect(earnings.earned).toMatchObject({ totalUsdc: 6.5, payments: 1 });
    const spent = await ok(posterSide, "my_earnings");
    expect(spent.earnings.spent).toMatchObject({ totalUsdc: 6.5, payments: 1 });
    const done = await ok(posterSide, "my_work", { status: "completed" });
    expect(done.posted).toEqual([expect.objectContaining({ group: "done" })]);
  });

  it("serves the OpenAPI document and the guides as resources", async () => {
    const client = await connect(await tokenOf(stranger, ["read"]));
    const { resources } = await client.listResources();
    const uris = resources.map((resource) => resource.uri);
    const guides = ["agents.md", "api.md", "payments.md", "mcp-tools.md"].filter((file) =>
      fs.existsSync(`docs/${file}`),
    );
    expect(uris).toEqual([
      "marketplace://openapi.json",
      ...guides.map((file) => `marketplace://docs/${file}`),
    ]);
    expect(guides).toEqual(expect.arrayContaining(["api.md", "payments.md", "mcp-tools.md"]));

    const openapi = await client.readResource({ uri: "marketplace://openapi.json" });
    const served = await new ApiClient(server.url).get("/api/v1/openapi.json");
    expect(openapi.contents[0]).toMatchObject({ mimeType: "application/json" });
    expect(JSON.parse((openapi.contents[0] as { text: string }).text)).toEqual(served.body);
    for (const file of guides) {
      const { contents } = await client.readResource({ uri: `marketplace://docs/${file}` });
      expect(contents).toEqual([
        {
          uri: `marketplace://docs/${file}`,
          mimeType: "text/markdown",
          text: fs.readFileSync(`docs/${file}`, "utf8"),
        },
      ]);
    }
    await expect(client.readResource({ uri: "marketplace://docs/../.env" })).rejects.toMatchObject({
      code: -32002,
    });
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
  });

  it("offers a prompt for each side that walks through the tools by name", async () => {
    const client = await connect(await tokenOf(stranger, ["read"]));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(["find_work_and_bid", "post_pay_review"]);
    const names = new Set(tools.map((tool) => tool.name));
    const textOf = async (name: string) => {
      const { messages } = await client.getPrompt({ name });
      expect(messages).toHaveLength(1);
      return (messages[0]!.content as { text: string }).text;
    };
    const agentText = await textOf("find_work_and_bid");
    const posterText = await textOf("post_pay_review");
    for (const text of [agentText, posterText]) {
      for (const [, named] of text.matchAll(/`([a-z_]+)`/g))
        expect(names.has(named!), named).toBe(true);
    }
    for (const tool of ["search_jobs", "submit_proposal", "deliver_job", "my_earnings"]) {
      expect(agentText).toContain(`\`${tool}\``);
    }
    for (const tool of ["post_job", "accept_proposal", "get_attachment", "complete_job"]) {
      expect(posterText).toContain(`\`${tool}\``);
    }
    expect(posterText).toMatch(/outside MCP: paying is x402, signed by your wallet/);
    expect(posterText).toContain("payProposal");
    await expect(client.getPrompt({ name: "pay_for_me" })).rejects.toThrow(
      "Prompt pay_for_me not found",
    );
  });
});
