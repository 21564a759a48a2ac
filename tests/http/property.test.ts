// Property: no input that reaches a route answers 5xx or writes an error to the server's log
// (issue: abuse). Every operation of the OpenAPI document and every MCP tool is driven with
// values generated from its own schemas (valid ones, their edges, and hostile ones: numbers no
// column holds, NUL bytes, lone surrogates, runs of search operators, sub-atomic amounts), by
// anonymous, cookie and token callers, two ways:
//   - a sweep: every hostile value in every path id, query parameter and body field (one
//     level into arrays of objects) of every operation and tool, the rest generated valid;
//   - random requests (fast-check), which shrink a failure to its smallest request.
// Derived from the document and the tool list, so a new route or tool is covered the day it is
// declared.
//
// PROPERTY_SEED=<n> replays another sequence; PROPERTY_RUNS=<n> changes the count.
import fc from "fast-check";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiDocument } from "@/lib/api/openapi/document";
import { ApiClient } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import {
  BUSY_TEST_SERVER_ENV,
  createJob,
  expectStatus,
  jobInProgress,
  makeCast,
  submitProposal,
} from "@/tests/helpers/fixtures";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors } from "@/tests/helpers/server-logs";

failOnServerErrors();

const SEED = Number(process.env.PROPERTY_SEED ?? 20261124);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  parameters: { in: string; name: string; schema: Schema; required?: boolean }[];
  body?: Schema;
}

const document = apiDocument() as {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
};

/**
 * Operations that end the caller's own credentials (they would turn the rest of the run into
 * 401s, not find anything), and the MCP endpoint, which gets its own property below.
 */
const SKIPPED = new Set(["POST /api/auth/logout", "DELETE /api/v1/tokens/{id}", "POST /api/mcp"]);

const OPERATIONS: Operation[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ["get", "post", "patch", "delete"].includes(method))
    .map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: (operation.parameters ?? []).filter(
        (parameter: { in: string }) => parameter.in === "query" || parameter.in === "path",
      ),
      body: operation.requestBody?.content?.["application/json"]?.schema,
    }))
    .filter((operation) => !SKIPPED.has(`${operation.method} ${operation.path}`)),
);

function resolve(schema: Schema): Schema {
  if (schema.$ref) {
    const name = String(schema.$ref).split("/").at(-1)!;
    return resolve(document.components.schemas[name]!);
  }
  return schema;
}

/** Values no schema should let reach a query, a column or a log line unchecked. */
const HOSTILE: unknown[] = [
  null,
  true,
  -1,
  0,
  -0,
  0.5,
  5e-324,
  1e-21,
  1e308,
  2 ** 53 + 2,
  2 ** 63,
  "",
  " ",
  "0",
  "-1",
  "latest",
  "9223372036854775807",
  "9223372036854775808",
  "9999999999999999999",
  "1".repeat(40),
  "1e400",
  "\u0000",
  "a\u0000b",
  "%00",
  "\ud800",
  "\udc00x",
  "-".repeat(40),
  "- ".repeat(40),
  "!!!!(((((",
  "\u202Eexe.txt",
  "\u200B",
  "👩‍💻🏴󠁧󠁢󠁳󠁣󠁴󠁿",
  "x".repeat(5_001),
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "'; DROP TABLE jobs; --",
  [],
  {},
  [null],
  { nested: { deeper: [1, "two"] } },
];

const hostile = fc.constantFrom(...HOSTILE);

function fromSchema(raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(raw);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((one: Schema) => fromSchema(one, depth)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string": {
      const max = Math.min(schema.maxLength ?? 60, 80);
      const edges = [
        ...(schema.maxLength !== undefined ? ["y".repeat(schema.maxLength + 1)] : []),
        ...(schema.format === "uri" ? ["https://example.com/x", "http://127.0.0.1/"] : []),
      ];
      return fc.oneof(
        fc.string({ minLength: schema.minLength ?? 0, maxLength: max, unit: "grapheme" }),
        fc.string({ maxLength: 20, unit: "binary" }),
        ...(edges.length ? [fc.constantFrom(...edges)] : []),
      );
    }
    case "integer":
    case "number": {
      const min = schema.minimum ?? schema.exclusiveMinimum ?? -1e6;
      const max = schema.maximum ?? schema.exclusiveMaximum ?? 1e9;
      return fc.oneof(
        fc.integer({ min: Math.max(-1e9, Math.ceil(min)), max: Math.min(1e12, Math.floor(max)) }),
        fc.double({ noNaN: false }),
        fc.constantFrom(min - 1, max + 1, min, max, 0.0000001, 1.000001),
      );
    }
    case "boolean":
      return fc.boolean();
    case "array":
      return depth > 3
        ? fc.constant([])
        : fc.array(fromSchema(schema.items ?? {}, depth + 1), {
            maxLength: Math.min(schema.maxItems ?? 4, 4),
          });
    case "object": {
      if (depth > 3 || !schema.properties)
        return fc.dictionary(fc.string(), hostile, { maxKeys: 3 });
      const required = new Set<string>(schema.required ?? []);
      const fields = Object.fromEntries(
        Object.entries(schema.properties as Record<string, Schema>).map(([name, field]) => [
          name,
          fieldValue(field, depth + 1),
        ]),
      );
      return fc.record(fields, {
        requiredKeys: [...required].filter((name) => name in fields),
      });
    }
    default:
      return hostile;
  }
}

/** A field: mostly what its schema says, sometimes hostile. */
const fieldValue = (schema: Schema, depth = 0) =>
  fc.oneof({ weight: 4, arbitrary: fromSchema(schema, depth) }, { weight: 1, arbitrary: hostile });

/** What a query string carries: text. */
const asQueryText = (value: unknown) =>
  typeof value === "string"
    ? value
    : typeof value === "object"
      ? JSON.stringify(value)
      : String(value);

/** A path segment for any text; a lone surrogate becomes the bytes of its UTF-16 half. */
const pathSegment = (value: string) =>
  [...value]
    .map((char) => {
      const code = char.charCodeAt(0);
      return code >= 0xd800 && code <= 0xdfff && char.length === 1
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((byte) => `%${byte.toString(16).toUpperCase()}`)
            .join("")
        : encodeURIComponent(char);
    })
    .join("");

interface World {
  server: RunningServer;
  callers: Record<string, Record<string, string>>;
  /** Real ids by path parameter, so that generated requests reach the code behind lookups. */
  ids: Record<string, string[]>;
}

function requestFor(operation: Operation, world: World) {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === "path");
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === "query");
  const idFor = (name: string) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...(world.ids[name] ?? ["none"])) },
      { weight: 1, arbitrary: hostile.map((value) => pathSegment(asQueryText(value))) },
      { weight: 1, arbitrary: fc.constantFrom("%ZZ", "%C0%AF", "%ED%A0%80", "a%00b") },
    );
  return fc
    .record({
      caller: fc.constantFrom(...Object.keys(world.callers)),
      path: fc
        .tuple(...pathParameters.map((parameter) => idFor(parameter.name)))
        .map((values) =>
          pathParameters.reduce(
            (path, parameter, index) => path.replace(`{${parameter.name}}`, String(values[index])),
            operation.path,
          ),
        ),
      query: fc.tuple(
        ...queryParameters.map((parameter) =>
          fc.option(fieldValue(parameter.schema).map(asQueryText), { nil: undefined }),
        ),
      ),
      body: operation.body
        ? fc.option(fieldValue(operation.body), { nil: undefined })
        : fc.constant(undefined),
    })
    .map(({ caller, path, query, body }) => {
      const search = new URLSearchParams();
      queryParameters.forEach((parameter, index) => {
        if (query[index] !== undefined) search.set(parameter.name, query[index]!);
      });
      return { caller, url: `${path}${search.size ? `?${search}` : ""}`, body };
    });
}

/** One value of the schema, generated valid (no hostile values), the same every run. */
const validSample = (schema: Schema, seed: number) =>
  fc.sample(fromSchema(schema), { seed, numRuns: 1 })[0];

/**
 * Where a hostile value can go in a request: each path id, each query parameter, the whole
 * body, each of its fields, and each field of the objects its arrays hold.
 */
function slotsOf(operation: Operation): string[] {
  const slots = operation.parameters.map((parameter) => `${parameter.in}:${parameter.name}`);
  if (!operation.body) return slots;
  slots.push("body");
  const body = resolve(operation.body);
  for (const [name, field] of Object.entries((body.properties ?? {}) as Record<string, Schema>)) {
    slots.push(`body:${name}`);
    const items = resolve(field).items && resolve(resolve(field).items);
    for (const inner of Object.keys(items?.properties ?? {})) slots.push(`body:${name}[]:${inner}`);
  }
  return slots;
}

/** The request with `value` in `slot` and every other part generated valid. */
function sweepRequest(operation: Operation, world: World, slot: string, value: unknown) {
  const search = new URLSearchParams();
  let path = operation.path;
  for (const parameter of operation.parameters) {
    const key = `${parameter.in}:${parameter.name}`;
    if (parameter.in === "path") {
      const id = key === slot ? pathSegment(asQueryText(value)) : world.ids[parameter.name]![0]!;
      path = path.replace(`{${parameter.name}}`, id);
    } else if (key === slot) search.set(parameter.name, asQueryText(value));
    else if (parameter.required)
      search.set(parameter.name, asQueryText(validSample(parameter.schema, 1)));
  }
  let body = operation.body ? validSample(operation.body, 2) : undefined;
  if (slot === "body") body = value;
  else if (slot.startsWith("body:")) {
    const [field, inner] = slot.slice(5).split("[]:") as [string, string | undefined];
    const fieldSchema = resolve(resolve(operation.body!).properties[field]);
    const object = { ...(body as Record<string, unknown>) };
    object[field] = inner
      ? [{ ...(validSample(resolve(fieldSchema.items), 3) as object), [inner]: value }]
      : value;
    body = object;
  }
  return { url: `${path}${search.size ? `?${search}` : ""}`, body };
}

/** Runs `tasks` `width` at a time. */
async function inPool<T>(tasks: (() => Promise<T>)[], width = 8): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]!();
      }
    }),
  );
  return results;
}

/** What is wrong with an answer, or nothing. */
function problemWith(status: number, contentType: string, text: string, url: string) {
  if (status >= 500) return `${status} ${text.slice(0, 300)}`;
  // Next.js normalizes an empty path segment ("/api/jobs//settle") with a redirect.
  if (status >= 300 && status < 400 && status !== 304) return undefined;
  if (url.includes("/attachments/") && status === 200) return undefined;
  if (!contentType.startsWith("application/json")) return `not JSON (${contentType})`;
  if (status === 304 || (url.startsWith("/api/v1/openapi.json") && status === 200))
    return undefined;
  const body = JSON.parse(text);
  if (status < 300) return "data" in body ? undefined : "2xx without data";
  const keys = Object.keys(body).sort().join(",");
  return keys === "code,error" && /^[a-z][a-z0-9_]*$/.test(body.code)
    ? undefined
    : `${status} without { error, code }: ${text.slice(0, 200)}`;
}

describe.each(DB_KINDS)("generated requests on %s", (kind) => {
  let world: World;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    const server = await startServer({
      ...database.env,
      ...BUSY_TEST_SERVER_ENV,
      RATE_LIMIT_READS_PER_MINUTE: "1000000",
    });
    const cast = await makeCast({ chain: { rpcUrl: inject("testChainRpcUrl") }, server });
    const { job: assigned, proposal: accepted } = await jobInProgress(cast);
    const delivered = expectStatus(
      await cast.operator.post(`/api/v1/jobs/${assigned.id}/deliver`, {
        attachments: [
          {
            name: "a.txt",
            size: 2,
            type: "text/plain",
            dataUrl: `data:text/plain;base64,${Buffer.from("ok").toString("base64")}`,
          },
        ],
      }),
      200,
    ).data;
    const open = await createJob(cast.poster);
    const pending = await submitProposal(cast.operator, open.id, cast.agent.id);
    expectStatus(
      await cast.operator.post(`/api/v1/jobs/${open.id}/proposals/${pending.id}/messages`, {
        body: "hello",
      }),
      200,
    );
    const tokenOf = async (client: ApiClient) =>
      expectStatus(
        await client.post("/api/v1/tokens", {
          name: "property",
          scopes: ["read", "post", "bid", "deliver", "review"],
        }),
        200,
      ).data as { id: string; token: string };
    const [posterToken, operatorToken] = await Promise.all([
      tokenOf(cast.poster),
      tokenOf(cast.operator),
    ]);
    const stranger = await new ApiClient(
      server.url,
      privateKeyToAccount(generatePrivateKey()),
    ).signIn();
    world = {
      server,
      callers: {
        anonymous: {},
        poster: { cookie: cast.poster.cookie! },
        operator: { cookie: cast.operator.cookie! },
        stranger: { cookie: stranger.cookie! },
        posterToken: { authorization: `Bearer ${posterToken.token}` },
        operatorToken: { authorization: `Bearer ${operatorToken.token}` },
      },
      ids: {
        // Webhooks need a public host this machine cannot resolve: their ids stay unknown.
        id: [open.id, assigned.id, cast.agent.id, posterToken.id, "wh_unknown"],
        proposalId: [pending.id, accepted.id],
        attachmentId: delivered.attachments.map((file: { id: string }) => file.id),
      },
    };
  });
  afterAll(async () => {
    await world?.server.stop();
    await cleanup?.();
  });

  /** One request as a caller; what is wrong with its answer, or nothing. */
  async function send(operation: Operation, caller: string, url: string, body: unknown) {
    const response = await fetch(`${world.server.url}${url}`, {
      method: operation.method,
      headers: {
        ...world.callers[caller],
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      redirect: "manual",
    });
    const text = await response.text();
    const problem = problemWith(
      response.status,
      response.headers.get("content-type") ?? "",
      text,
      url,
    );
    return { status: response.status, problem };
  }

  it("sweep: every hostile value in every path id, query parameter and body field of every operation", async () => {
    const cases = OPERATIONS.flatMap((operation) =>
      slotsOf(operation).flatMap((slot) => HOSTILE.map((value) => ({ operation, slot, value }))),
    );
    const problems = await inPool(
      cases.map(({ operation, slot, value }) => async () => {
        const { url, body } = sweepRequest(operation, world, slot, value);
        const { problem } = await send(operation, "poster", url, body);
        return problem
          ? `${operation.method} ${operation.path} ${slot}=${JSON.stringify(value)?.slice(0, 60)}: ${problem}`
          : undefined;
      }),
    );
    expect(cases.length).toBeGreaterThan(3_000);
    expect(problems.filter(Boolean)).toEqual([]);
  }, 300_000);

  it(`no operation of the OpenAPI document answers 5xx (${RUNS} requests, seed ${SEED})`, async () => {
    const request = fc
      .constantFrom(...OPERATIONS)
      .chain((operation) =>
        requestFor(operation, world).map((generated) => ({ operation, ...generated })),
      );
    const seen = new Map<string, Set<number>>();
    await fc.assert(
      fc.asyncProperty(request, async ({ operation, caller, url, body }) => {
        const { status, problem } = await send(operation, caller, url, body);
        const key = `${operation.method} ${operation.path}`;
        seen.set(key, (seen.get(key) ?? new Set()).add(status));
        expect(
          problem,
          `${operation.method} ${url} as ${caller} with ${JSON.stringify(body)?.slice(0, 300)}`,
        ).toBeUndefined();
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: false },
    );
    // Every operation was tried.
    expect([...seen.keys()].sort()).toEqual(
      OPERATIONS.map((operation) => `${operation.method} ${operation.path}`).sort(),
    );
  });

  const mcpHeaders = () => ({
    ...world.callers.posterToken,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  });

  async function listTools() {
    const listed = await fetch(`${world.server.url}/api/mcp`, {
      method: "POST",
      headers: mcpHeaders(),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    const tools = (await listed.json()).result.tools as { name: string; inputSchema: Schema }[];
    expect(tools.length).toBeGreaterThan(10);
    return tools;
  }

  /** One tools/call; what is wrong with its answer (a 5xx, a JSON-RPC error), or nothing. */
  async function callTool(tool: string, args: unknown): Promise<string | undefined> {
    const response = await fetch(`${world.server.url}/api/mcp`, {
      method: "POST",
      headers: mcpHeaders(),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: tool, arguments: args },
      }),
    });
    if (response.status !== 200) return `HTTP ${response.status} ${await response.text()}`;
    const answer = await response.json();
    if (answer.error) return `JSON-RPC error ${JSON.stringify(answer.error)}`;
    const { isError, structuredContent } = answer.result;
    if (isError && !(structuredContent.status < 500)) return `status ${structuredContent.status}`;
    if (isError && !/^[a-z][a-z0-9_]*$/.test(structuredContent.code)) return "no code";
    return undefined;
  }

  /** The tool's schema with its job and proposal ids drawn from the real ones. */
  const withRealIds = (schema: Schema): Schema => ({
    ...schema,
    properties: Object.fromEntries(
      Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([name, field]) =>
        name === "jobId"
          ? [name, { enum: world.ids.id!.slice(0, 2) }]
          : name === "proposalId"
            ? [name, { enum: world.ids.proposalId }]
            : [name, field],
      ),
    ),
  });

  it("sweep: every hostile value in every argument of every MCP tool", async () => {
    const tools = await listTools();
    const cases = tools.flatMap((tool) =>
      Object.keys(tool.inputSchema.properties ?? {}).flatMap((name) =>
        HOSTILE.map((value) => ({ tool, name, value })),
      ),
    );
    const problems = await inPool(
      cases.map(({ tool, name, value }) => async () => {
        const args = {
          ...(validSample(withRealIds(tool.inputSchema), 4) as object),
          [name]: value,
        };
        const problem = await callTool(tool.name, args);
        return problem
          ? `${tool.name} ${name}=${JSON.stringify(value)?.slice(0, 60)}: ${problem}`
          : undefined;
      }),
    );
    expect(cases.length).toBeGreaterThan(1_000);
    expect(problems.filter(Boolean)).toEqual([]);
  }, 300_000);

  it(`no MCP tool answers 5xx or a JSON-RPC error (${RUNS} calls, seed ${SEED})`, async () => {
    const tools = await listTools();
    const call = fc
      .constantFrom(...tools)
      .chain((tool) =>
        fc
          .oneof(fromSchema(withRealIds(tool.inputSchema)), fromSchema(tool.inputSchema))
          .map((args) => ({ tool: tool.name, args })),
      );
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(call, async ({ tool, args }) => {
        seen.add(tool);
        const problem = await callTool(tool, args);
        expect(problem, `${tool} ${JSON.stringify(args).slice(0, 300)}`).toBeUndefined();
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: false },
    );
    expect([...seen].sort()).toEqual(tools.map((tool) => tool.name).sort());
  });
});
