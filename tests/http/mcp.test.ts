// The MCP server over HTTP against the production app server, driven by the SDK's own Client
// and StreamableHTTPClientTransport with access tokens: the tool list and its schemas, a whole
// job's life through tools alone (paying stays the x402 resource), refusals that read as the
// HTTP API's, and 401 without a valid token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import type { TokenScope } from "@/lib/shared/enums";
import { createAgentSchema } from "@/lib/shared/schemas/agents";
import {
  acceptSchema,
  completeSchema,
  createJobSchema,
  deliverSchema,
  listJobsQuerySchema,
} from "@/lib/shared/schemas/jobs";
import { createProposalSchema, listProposalsQuerySchema } from "@/lib/shared/schemas/proposals";
import { workQuerySchema } from "@/lib/shared/schemas/work";
import { ApiClient, type ErrorBody } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import { BUSY_TEST_SERVER_ENV, expectStatus, validJobBody } from "@/tests/helpers/fixtures";
import { payFor, type PaymentTarget } from "@/tests/helpers/market";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";

const TOOL_NAMES = [
  "accept_proposal",
  "cancel_job",
  "complete_job",
  "deliver_job",
  "get_agent",
  "get_attachment",
  "get_job",
  "get_payee_consent",
  "get_payment",
  "list_agents",
  "list_events",
  "list_messages",
  "list_notifications",
  "list_proposals",
  "list_reviews",
  "mark_messages_read",
  "mark_notifications_read",
  "my_earnings",
  "my_jobs",
  "my_proposals",
  "my_work",
  "open_dispute",
  "post_job",
  "post_review",
  "register_agent",
  "reject_proposal",
  "search_jobs",
  "send_message",
  "submit_proposal",
  "update_agent",
];

const jsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: "input" }) as {
    properties: Record<string, unknown>;
    required?: string[];
  };
const idSchema = { type: "string", minLength: 1, description: "The job's id" };

interface ToolOutcome {
  isError: boolean;
  text: string;
  data: any;
}

describe.each(DB_KINDS)("MCP server over HTTP on %s", (kind) => {
  let server: RunningServer;
  let market: PaymentTarget;
  let cleanup: () => Promise<void>;
  let poster: ApiClient;
  let operator: ApiClient;
  let posterToken: string;
  let agentToken: string;
  const clients: Client[] = [];

  async function tokenOf(client: ApiClient, scopes: TokenScope[]) {
    return expectStatus(
      await client.post("/api/v1/tokens", { name: "mcp", scopes }),
      200,
      "create token",
    ).data.token as string;
  }

  /** An MCP client connected over Streamable HTTP, with `token` as its bearer credential. */
  async function connect(token?: string): Promise<Client> {
    const client = new Client({ name: "marketplace-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(
      new URL(`${server.url}/api/mcp`),
      token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : undefined,
    );
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(
    client: Client,
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<ToolOutcome> {
    const result = await client.callTool({ name, arguments: args });
    const content = result.content as { type: string; text: string }[];
    return {
      isError: result.isError === true,
      text: content[0]!.text,
      data: result.structuredContent,
    };
  }

  /** The tool's result, failing the test with its message if it was refused. */
  async function ok(
    client: Client,
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<any> {
    const outcome = await call(client, name, args);
    if (outcome.isError) throw new Error(`${name} refused: ${outcome.text}`);
    expect(JSON.parse(outcome.text)).toEqual(JSON.parse(JSON.stringify(outcome.data)));
    return outcome.data;
  }

  beforeAll(async () => {
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    server = await startServer({ ...database.env, ...BUSY_TEST_SERVER_ENV });
    market = { chain: { rpcUrl: inject("testChainRpcUrl") }, server };
    const signIn = () =>
      new ApiClient(server.url, privateKeyToAccount(generatePrivateKey())).signIn();
    [poster, operator] = await Promise.all([signIn(), signIn()]);
    posterToken = await tokenOf(poster, ["read", "post", "review"]);
    agentToken = await tokenOf(operator, ["read", "bid", "deliver"]);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await server?.stop();
    await cleanup?.();
  });

  it("lists every tool with its input JSON Schema derived from the routes' zod schemas", async () => {
    const client = await connect(agentToken);
    expect(client.getServerVersion()).toEqual({ name: "agent-marketplace", version: "1.0.0" });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const schemaOf = (name: string) => byName.get(name)!.inputSchema;

    const job = jsonSchema(createJobSchema);
    expect(schemaOf("post_job")).toEqual({
      type: "object",
      properties: job.properties,
      required: job.required,
    });
    expect(job.required).toEqual([
      "title",
      "description",
      "category",
      "budgetUsdc",
      "timelineDays",
    ]);
    const proposal = jsonSchema(createProposalSchema);
    expect(schemaOf("submit_proposal")).toEqual({
      type: "object",
      properties: { jobId: idSchema, ...proposal.properties },
      required: ["jobId", ...proposal.required!],
    });
    expect(schemaOf("accept_proposal")).toEqual({
      type: "object",
      properties: { jobId: idSchema, ...jsonSchema(acceptSchema).properties },
      required: ["jobId", "proposalId", "txHash"],
    });
    expect(schemaOf("complete_job")).toEqual({
      type: "object",
      properties: { jobId: idSchema, ...jsonSchema(completeSchema).properties },
      required: ["jobId"],
    });
    expect(schemaOf("deliver_job").properties).toEqual({
      jobId: idSchema,
      text: { type: "string", maxLength: 5 * 1024 * 1024 },
      attachments: jsonSchema(deliverSchema).properties.attachments,
    });
    expect(schemaOf("reject_proposal")).toEqual({
      type: "object",
      properties: {
        jobId: idSchema,
        proposalId: { ...idSchema, description: "The proposal's id (of this job)" },
      },
      required: ["jobId", "proposalId"],
    });
    expect(schemaOf("search_jobs").properties).toEqual(jsonSchema(listJobsQuerySchema).properties);
    expect(schemaOf("list_proposals").properties).toEqual({
      jobId: idSchema,
      ...jsonSchema(listProposalsQuerySchema).properties,
    });
    expect(schemaOf("my_work").properties).toEqual(jsonSchema(workQuerySchema).properties);
    expect(schemaOf("register_agent").properties).toEqual(jsonSchema(createAgentSchema).properties);

    const scopes = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta?.scope]));
    expect(scopes).toEqual({
      search_jobs: "read",
      get_job: "read",
      get_attachment: "read",
      list_proposals: "read",
      get_payment: "read",
      my_work: "read",
      post_job: "post",
      reject_proposal: "post",
      accept_proposal: "post",
      complete_job: "post",
      // Protected payments: the poster cancels; either side disputes.
      cancel_job: "post",
      open_dispute: ["post", "deliver"],
      register_agent: "bid",
      submit_proposal: "bid",
      deliver_job: "deliver",
      list_messages: "read",
      mark_messages_read: "read",
      list_notifications: "read",
      // The poster writes with post, the agent's side with bid.
      send_message: ["post", "bid"],
      get_agent: "read",
      list_agents: "read",
      update_agent: "bid",
      get_payee_consent: "read",
      list_reviews: "read",
      post_review: "review",
      my_jobs: "read",
      my_proposals: "read",
      my_earnings: "read",
      list_events: "read",
      mark_notifications_read: "read",
    });
    // Marking read changes state (not read-only) but needs only the read scope.
    const readScopedWrites = new Set(["mark_messages_read", "mark_notifications_read"]);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(
        scopes[tool.name] === "read" && !readScopedWrites.has(tool.name),
      );
    }
  });

  it("drives a job from posting to completion through MCP tools alone (paying over x402)", async () => {
    const agentSide = await connect(agentToken);
    const posterSide = await connect(posterToken);

    const { agent } = await ok(agentSide, "register_agent", {
      name: "Lens",
      categories: ["research"],
    });
    expect(agent).toMatchObject({
      walletAddress: operator.account!.address,
      operatorAddress: operator.account!.address,
    });

    const { job } = await ok(posterSide, "post_job", validJobBody({ budgetUsdc: 30 }));
    expect(job).toMatchObject({ status: "open", posterAddress: poster.account!.address });

    const found = await ok(agentSide, "search_jobs", { status: "open", category: "research" });
    expect(found.jobs.map((item: { id: string }) => item.id)).toContain(job.id);
    expect(await ok(agentSide, "get_job", { jobId: job.id })).toEqual({ job });

    const { proposal } = await ok(agentSide, "submit_proposal", {
      jobId: job.id,
      agentId: agent.id,
      bidUsdc: 4.25,
      etaDays: 2,
      message: "Twenty one-page summaries by Friday.",
    });
    expect(proposal).toMatchObject({ status: "pending", bidUsdc: 4.25, jobId: job.id });
    expect(await ok(posterSide, "list_proposals", { jobId: job.id })).toEqual({
      proposals: [proposal],
      nextCursor: null,
    });
    const bidding = await ok(agentSide, "my_work");
    expect(bidding.agents.map((item: { id: string }) => item.id)).toEqual([agent.id]);
    expect(bidding.bids).toEqual([{ proposal, job }]);
    expect(bidding.assigned).toEqual([]);
    expect(bidding.posted).toEqual([]);
    // The poster's own jobs, with where each stands: a bid waits for a decision.
    const posterWork = await ok(posterSide, "my_work");
    expect(posterWork.posted).toEqual([{ job, group: "proposals_waiting", pendingProposals: 1 }]);
    expect(posterWork.agents).toEqual([]);
    expect(await ok(agentSide, "get_payment", { jobId: job.id })).toEqual({ payment: null });

    // Paying is the x402 resource, signed by the poster's wallet (no MCP tool moves money).
    const txHash = await payFor(market, poster, job.id, proposal.id);
    const { payment } = await ok(agentSide, "get_payment", { jobId: job.id });
    expect(payment).toMatchObject({
      status: "succeeded",
      txHash,
      amountUsdc: 4.25,
      payer: poster.account!.address,
      payTo: operator.account!.address,
      proposalId: proposal.id,
    });

    const accepted = await ok(posterSide, "accept_proposal", {
      jobId: job.id,
      proposalId: proposal.id,
      txHash,
    });
    expect(accepted.job).toMatchObject({
      status: "in_progress",
      assignedAgentId: agent.id,
      paymentTxHash: txHash,
    });
    const assigned = await ok(agentSide, "my_work", { status: "in_progress" });
    expect(assigned.assigned.map((item: { id: string }) => item.id)).toEqual([job.id]);
    expect(assigned.bids).toEqual([]);

    // The same limits as the HTTP route: ten files at most, the text counting as one.
    const file = {
      name: "summaries.csv",
      size: 7,
      type: "text/csv",
      dataUrl: `data:text/csv;base64,${Buffer.from("a,b\n1,2").toString("base64")}`,
    };
    const tooMany = await call(agentSide, "deliver_job", {
      jobId: job.id,
      text: "x",
      attachments: Array.from({ length: 10 }, (_, i) => ({ ...file, name: `f${i}.csv` })),
    });
    expect(tooMany).toMatchObject({ isError: true, text: "attachments: at most 10 attachments" });
    const badFile = await call(agentSide, "deliver_job", {
      jobId: job.id,
      attachments: [{ ...file, size: 8 }],
    });
    expect(badFile.text).toBe(
      "attachments.0 (summaries.csv): decoded size 7 does not match size 8",
    );

    const delivered = await ok(agentSide, "deliver_job", {
      jobId: job.id,
      text: "Here are the summaries — one page each.",
      attachments: [file],
    });
    expect(delivered.job.status).toBe("delivered");
    expect(delivered.job.attachments.map((item: { name: string }) => item.name)).toEqual([
      "summaries.csv",
      "delivery.txt",
    ]);
    const textFile = delivered.job.attachments[1];
    const download = await new ApiClient(server.url).get(
      `/api/v1/jobs/${job.id}/attachments/${textFile.id}`,
      { authorization: `Bearer ${posterToken}` },
    );
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("text/plain");
    expect(download.body).toBe("Here are the summaries — one page each.");

    const completed = await ok(posterSide, "complete_job", {
      jobId: job.id,
      rating: 5,
      comment: "Clear and on time",
    });
    expect(completed.job).toMatchObject({ status: "completed", posterVerified: true });
    const reviews = await poster.get(`/api/v1/reviews?agentId=${agent.id}`);
    expect(reviews.body.data).toEqual([
      expect.objectContaining({
        jobId: job.id,
        rating: 5,
        comment: "Clear and on time",
        reviewerAddress: poster.account!.address,
      }),
    ]);
  });

  it("refuses as the HTTP API does: wrong role, wrong state, missing scope, bad input", async () => {
    const agentSide = await connect(agentToken);
    const posterSide = await connect(posterToken);
    const { job } = await ok(posterSide, "post_job", validJobBody());

    // Wrong role: the operator's wallet, with every scope, completing the poster's job.
    const operatorAll = await connect(
      await tokenOf(operator, ["read", "post", "bid", "deliver", "review"]),
    );
    const wrongRole = await call(operatorAll, "complete_job", { jobId: job.id });
    expect(wrongRole).toEqual({
      isError: true,
      text: "only the job's poster can complete the job",
      data: {
        error: "only the job's poster can complete the job",
        status: 403,
        code: "not_poster",
      },
    });
    // Right role, wrong state.
    const wrongState = await call(posterSide, "complete_job", { jobId: job.id });
    expect(wrongState.data).toEqual({
      error: "cannot complete the job: the job is open, it must be delivered",
      status: 409,
      code: "job_not_delivered",
    });
    // A scope the token lacks, and the review scope a rating needs.
    const noScope = await call(agentSide, "post_job", validJobBody());
    expect(noScope.data).toEqual({
      error: 'this access token does not have the "post" scope (it has: read, bid, deliver)',
      status: 403,
      code: "insufficient_scope",
    });
    const postOnly = await connect(await tokenOf(poster, ["post"]));
    const rated = await call(postOnly, "complete_job", { jobId: job.id, rating: 5 });
    expect(rated.data.code).toBe("insufficient_scope");
    expect(rated.text).toContain('"review" scope');
    // Unknown ids and bad input: the same message the HTTP route gives for the same body.
    expect((await call(agentSide, "get_job", { jobId: "job_nope" })).data).toEqual({
      error: "job job_nope not found",
      status: 404,
      code: "job_not_found",
    });
    const body = validJobBody({ budgetUsdc: 0, timelineDays: 2.5 });
    const http = await new ApiClient(server.url).post("/api/v1/jobs", body, {
      authorization: `Bearer ${posterToken}`,
    });
    expect(http.status).toBe(400);
    const tool = await call(posterSide, "post_job", body);
    expect(tool).toEqual({
      isError: true,
      text: http.body.error,
      data: { error: http.body.error, status: 400, code: "invalid_request" },
    });
    expect((await call(posterSide, "get_job", {})).text).toBe("jobId must be a string");
    // An unknown tool is a protocol error, not a tool result.
    await expect(posterSide.callTool({ name: "pay_job", arguments: {} })).rejects.toThrow(
      "Tool pay_job not found",
    );
  });

  it("answers 401 without a valid access token, 405 to GET", async () => {
    const refusal = async (token?: string) =>
      connect(token).then(
        () => undefined,
        (error: unknown) => error,
      );
    for (const token of [undefined, "amk_nope", `amk_${"A".repeat(43)}`]) {
      const error = await refusal(token);
      expect(error, String(token)).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(401);
    }
    // A browser session is not enough: MCP takes tokens only.
    const cookieOnly = await poster.request("POST", "/api/mcp", {
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { accept: "application/json, text/event-stream" },
    });
    expect(cookieOnly.status).toBe(401);
    expect((cookieOnly.body as ErrorBody).code).toBe("token_required");
    expect(cookieOnly.headers.get("www-authenticate")).toBe('Bearer realm="marketplace"');
    const invalid = await new ApiClient(server.url).post(
      "/api/mcp",
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { authorization: "Bearer amk_nope", accept: "application/json, text/event-stream" },
    );
    expect(invalid).toMatchObject({
      status: 401,
      body: { error: "the access token is not valid", code: "invalid_token" },
    });
    const get = await new ApiClient(server.url).get("/api/mcp", {
      authorization: `Bearer ${agentToken}`,
    });
    expect(get.status).toBe(405);
    // And a stateless server answers any single request without a session.
    const direct = await new ApiClient(server.url).post(
      "/api/mcp",
      { jsonrpc: "2.0", id: 7, method: "tools/list" },
      {
        authorization: `Bearer ${agentToken}`,
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
    );
    expect(direct.status).toBe(200);
    // The document leaves a JSON-RPC answer's shape to MCP.
    const answer = direct.body as { id: number; result: { tools: unknown[] } };
    expect(answer.id).toBe(7);
    expect(answer.result.tools).toHaveLength(TOOL_NAMES.length);
    // Streamable HTTP needs both types in Accept: refused with our code, as every refusal.
    for (const accept of ["application/json", "*/*", undefined]) {
      const refused = await new ApiClient(server.url).post(
        "/api/mcp",
        { jsonrpc: "2.0", id: 8, method: "tools/list" },
        { authorization: `Bearer ${agentToken}`, ...(accept ? { accept } : {}) },
      );
      expect(refused.status, String(accept)).toBe(406);
      expect(refused.body).toMatchObject({
        jsonrpc: "2.0",
        error: { code: -32000, data: { code: "not_acceptable" } },
        id: null,
      });
    }
    // And a body that is not application/json, or not JSON-RPC 2.0 (an empty batch included).
    const mcpPost = (body: string, contentType: string) =>
      fetch(`${server.url}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${agentToken}`,
          accept: "application/json, text/event-stream",
          "content-type": contentType,
        },
        body,
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const tools = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    expect(await mcpPost(tools, "text/plain")).toMatchObject({
      status: 415,
      body: { error: { code: -32000, data: { code: "unsupported_media_type" } }, id: null },
    });
    for (const body of ["[]", '{"foo":1}', '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"id":2}]']) {
      expect(await mcpPost(body, "application/json"), body).toMatchObject({
        status: 400,
        body: { error: { code: -32600, data: { code: "invalid_request" } }, id: null },
      });
    }
  });

  it("never writes a token to the server's output", async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server.stop();
    const output = server.logs();
    expect(output).toContain("Ready on");
    for (const token of [posterToken, agentToken]) expect(output).not.toContain(token.slice(4));
  });
});
