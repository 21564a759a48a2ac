// Property-style test: a few thousand random and malformed bodies, query strings and path
// ids, generated from a fixed seed, thrown at every write endpoint and every list endpoint
// of a running production server. Properties: never a 5xx, always the JSON envelope
// (`{ data }` on 2xx, exactly `{ error: string, code: string }` on 4xx), the server alive and without an
// "Unhandled error" in its log at the end, and no partial writes: every count read back
// through the API changed by exactly the number of creations the server answered 201 to.
//
// FUZZ_SEED=<n> replays another sequence; FUZZ_ITERATIONS=<n> changes the count.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVER_BODY_LIMIT, JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import { ApiClient, type ApiResponse } from "@/tests/helpers/api";
import { type DbKind, TEST_DATABASE_URL } from "@/tests/helpers/db";
import {
  BUSY_TEST_SERVER_ENV,
  createJob,
  expectStatus,
  jobInProgress,
  deliveredJob,
  listAll,
  makeCast,
  type Cast,
  paySettlement,
  registerAgent,
  signedInClient,
  submitProposal,
  validJobBody,
} from "@/tests/helpers/fixtures";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import { prepareServerDatabase, type RunningServer, startServer } from "@/tests/helpers/server";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const ITERATIONS: Record<DbKind, number> = {
  pglite: Number(process.env.FUZZ_ITERATIONS ?? 3000),
  postgres: Number(process.env.FUZZ_ITERATIONS ?? 3000),
};
const PARALLEL = 6;
/** The requests run as this many tests, each within BATCH_TIMEOUT_MS. */
const BATCHES = 6;
const BATCH_TIMEOUT_MS = 90_000;
const JSON_LIMIT = JSON_BODY_LIMIT;
const DELIVER_LIMIT = DELIVER_BODY_LIMIT;

// ---------------------------------------------------------------------------------------
// A tiny deterministic PRNG (mulberry32) and helpers on top of it.

class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

const CATEGORIES = ["research", "writing", "design", "engineering", "blockchain", "consulting"];

/** Values that break naive code: wrong types, edge numbers, odd strings, containers. */
const NASTY: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  -1,
  1,
  0.5,
  1e-7,
  0.0000001,
  1.0000001,
  123456789.1234567,
  1e9,
  1e9 + 1,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  1e21,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  3650,
  3651,
  5,
  6,
  4.5,
  "",
  " ",
  "   padded   ",
  "0",
  "1",
  "-1",
  "5",
  "20",
  "NaN",
  "Infinity",
  "-Infinity",
  "1e400",
  "0x10",
  "null",
  "true",
  "undefined",
  "[object Object]",
  "\u0000",
  "a\u0000b",
  "\u202eevil",
  "line\nbreak",
  "tab\tx",
  "\r\n",
  "\u007f",
  "😀".repeat(10),
  "\ud800",
  "e\u0301",
  "<script>alert(1)</script>",
  "'; DROP TABLE jobs; --",
  "../../etc/passwd",
  "%00",
  "${jndi:ldap://x}",
  "research",
  "open",
  "all",
  "job_",
  "0x0000000000000000000000000000000000000000",
  "0x" + "f".repeat(64),
  "0x" + "g".repeat(64),
  [],
  [null],
  ["research"],
  ["research", "research"],
  [1, 2, 3],
  {},
  { $gt: "" },
  { toString: "x" },
  { valueOf: 1 },
];

function randomString(rng: Rng): string {
  const alphabets = [
    "abcdefghijklmnopqrstuvwxyz",
    "0123456789",
    " \t\n",
    "ÄÖÜßéçñ",
    "日本語中文한국어",
    "😀🚀💥👩‍💻",
    "\u0000\u0001\u001f\u007f",
    "\u200b\u200e\u202e\ufeff",
    "\"'\\/<>{}[]%&",
  ];
  const length = rng.chance(0.05) ? rng.int(6000) : rng.int(40);
  let out = "";
  for (let i = 0; i < length; i++) {
    const alphabet = rng.pick(alphabets);
    out += Array.from(alphabet)[rng.int(Array.from(alphabet).length)];
  }
  return out;
}

function randomNumber(rng: Rng): number {
  switch (rng.int(5)) {
    case 0:
      return rng.int(10) - 3;
    case 1:
      return (rng.next() - 0.3) * 10 ** rng.int(15);
    case 2:
      return Number((rng.next() * 100).toFixed(rng.int(10)));
    case 3:
      return rng.pick([Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e300, 1e-300]);
    default:
      return rng.int(4000);
  }
}

function randomValue(rng: Rng, depth = 0): unknown {
  const roll = rng.int(depth > 3 ? 4 : 7);
  switch (roll) {
    case 0:
      return rng.pick(NASTY);
    case 1:
      return randomString(rng);
    case 2:
      return randomNumber(rng);
    case 3:
      return rng.pick(NASTY);
    case 4:
      return Array.from({ length: rng.int(5) }, () => randomValue(rng, depth + 1));
    case 5: {
      const object: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i--)
        object[randomString(rng).slice(0, 12)] = randomValue(rng, depth + 1);
      return object;
    }
    default:
      return deepNest(rng.int(200) + 1);
  }
}

function deepNest(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { x: value };
  return value;
}

// ---------------------------------------------------------------------------------------
// Request cases.

type Caller = "poster" | "operator" | "stranger" | "anon";

interface Case {
  index: number;
  endpoint: string;
  method: "GET" | "POST";
  path: string;
  caller: Caller;
  body?: string;
  contentType?: string;
  /** A body over the JSON limit: 413 expected. */
  oversized?: boolean;
}

/** Ids the generator puts into paths and bodies: real ones mostly, junk sometimes. */
interface Targets {
  openJob: string;
  openProposal: string;
  openTxHash: string;
  rejectJob: string;
  rejectProposals: string[];
  deliverJob: string;
  reviewJob: string;
  completeJob: string;
  agent: string;
  allJobs: string[];
}

const CONTENT_TYPES = [
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "application/xml",
  "application/json; charset=utf-16",
  undefined,
];

const RAW_BODIES = [
  "{",
  "}",
  "{]",
  "[",
  "nul",
  "undefined",
  "NaN",
  "{'single': 'quotes'}",
  '{"a":1,}',
  "{a:1}",
  '{"a":"\\x00"}',
  '{"a":"\\ud800"}',
  "\ufeff{}",
  "\u0000",
  "0",
  '""',
  "null",
  "true",
  "[]",
  "1e400",
  "-",
  "--",
  "<xml/>",
  "a=1&b=2",
  '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--',
  "\u00ff\u00fe",
];

/** A value that is not the field's value in `valid`, from a mix of nasty and random ones. */
function mutateValue(rng: Rng): unknown {
  return rng.chance(0.6) ? rng.pick(NASTY) : randomValue(rng);
}

function jsonWith(rng: Rng, valid: Record<string, unknown>): string {
  const body: Record<string, unknown> = { ...valid };
  const keys = Object.keys(valid);
  const strategy = rng.int(10);
  if (strategy === 0) {
    // valid as is: the few requests that should succeed
  } else if (strategy <= 4 && keys.length > 0) {
    body[rng.pick(keys)] = mutateValue(rng);
  } else if (strategy <= 6 && keys.length > 0) {
    for (let i = 1 + rng.int(3); i > 0; i--) body[rng.pick(keys)] = mutateValue(rng);
  } else if (strategy === 7 && keys.length > 0) {
    delete body[rng.pick(keys)];
  } else if (strategy === 8) {
    // extra keys are ignored: still valid (may succeed)
    body[randomString(rng).slice(0, 20) || "extra"] = randomValue(rng);
  } else {
    return JSON.stringify(randomValue(rng));
  }
  let text = JSON.stringify(body);
  if (rng.chance(0.08)) {
    // prototype pollution keys must be written as raw JSON: a JS literal would set the prototype
    const key = rng.pick(["__proto__", "constructor", "prototype"]);
    const payload = rng.pick([
      '{"polluted":"yes","status":"completed","isAdmin":true}',
      '{"prototype":{"polluted":"yes"}}',
      "null",
      "[]",
    ]);
    text = `{"${key}":${payload}${text.length > 2 ? "," : ""}${text.slice(1)}`;
  }
  if (rng.chance(0.03)) {
    // duplicated keys: the last one wins in JSON.parse
    const key = rng.pick(keys.length > 0 ? keys : ["x"]);
    text = `${text.slice(0, -1)}${text.length > 2 ? "," : ""}"${key}":${JSON.stringify(mutateValue(rng))}}`;
  }
  return text;
}

function makeBody(
  rng: Rng,
  valid: Record<string, unknown>,
  limit: number,
): { body?: string; oversized?: boolean } {
  const roll = rng.int(100);
  if (roll < 5) return {};
  if (roll < 12) return { body: rng.pick(RAW_BODIES) };
  if (roll < 15) {
    const text = JSON.stringify(valid);
    return { body: text.slice(0, rng.int(text.length)) };
  }
  if (roll < 17) {
    // a very long string value, bounded below the 1 MiB body limit
    const key = rng.pick(Object.keys(valid).length > 0 ? Object.keys(valid) : ["x"]);
    return { body: JSON.stringify({ ...valid, [key]: "x".repeat(200_000 + rng.int(700_000)) }) };
  }
  if (roll === 17)
    return { body: JSON.stringify({ ...valid, pad: "y".repeat(limit) }), oversized: true };
  return { body: jsonWith(rng, valid) };
}

function junkId(rng: Rng): string {
  return rng.pick([
    "job_doesnotexist",
    "prop_doesnotexist",
    "agent_doesnotexist",
    "x".repeat(65),
    "x".repeat(300),
    "%00",
    "a%00b",
    "%20",
    "%2F",
    enc("日本"),
    enc("😀"),
    enc("'; DROP TABLE jobs; --"),
    enc("\u202e"),
    "null",
    "undefined",
    "__proto__",
    "constructor",
    "0",
    "-1",
    "%ZZ",
    "%ED%A0%80",
    "%C0%AF",
    enc(randomString(rng).slice(0, 50)) || "empty",
  ]);
}

/** A real id most of the time, a junk one otherwise. */
const idOr = (rng: Rng, real: string) => (rng.chance(0.75) ? real : junkId(rng));

function queryString(rng: Rng, keys: string[]): string {
  const pairs: string[] = [];
  for (let i = rng.int(5); i > 0; i--) {
    const key = rng.chance(0.8)
      ? rng.pick(keys)
      : rng.pick([
          "__proto__",
          "constructor",
          "",
          "status[]",
          "limit[0]",
          "a b",
          randomString(rng).slice(0, 10),
        ]);
    let value: string;
    switch (rng.int(6)) {
      case 0:
        value = asText(rng.pick(NASTY));
        break;
      case 1:
        value = randomString(rng).slice(0, 500);
        break;
      case 2:
        value = String(randomNumber(rng));
        break;
      case 3:
        value = rng.pick([
          "open",
          "in_progress",
          "delivered",
          "completed",
          "all",
          "active",
          "pending",
          "rejected",
          "accepted",
          ...CATEGORIES,
          "50",
          "1",
          "100",
          "101",
          "0",
        ]);
        break;
      case 4:
        value = randomCursor(rng);
        break;
      default:
        value = junkId(rng);
        pairs.push(`${enc(key)}=${value}`);
        continue;
    }
    const raw = rng.chance(0.1);
    pairs.push(raw ? `${key}=${value}`.replace(/[#\s]/g, "") : `${enc(key)}=${enc(value)}`);
  }
  if (rng.chance(0.05))
    pairs.push(rng.pick(["%", "%E0%A4%A", "&&&", "=", "limit", "limit=", "=5"]));
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

/** encodeURIComponent that survives lone surrogates (they become U+FFFD). */
const enc = (text: string) => encodeURIComponent(text.toWellFormed());

const asText = (value: unknown) =>
  typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);

function randomCursor(rng: Rng): string {
  const payload = rng.pick<unknown>([
    [new Date().toISOString(), "job_x"],
    ["1970-01-01T00:00:00.000Z", "\u0000"],
    ["+275760-09-13T00:00:00.000Z", "job_x"],
    ["0000-01-01T00:00:00.000Z", "job_x"],
    ["-000001-01-01T00:00:00.000Z", "job_x"],
    ["2024-02-30", "job_x"],
    ["not a date", "job_x"],
    [1, 2],
    [new Date().toISOString()],
    [new Date().toISOString(), "x".repeat(150)],
    { createdAt: 1, id: "x" },
    "string",
    null,
  ]);
  const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return rng.chance(0.8)
    ? encoded
    : rng.pick([encoded.slice(1), `${encoded}!!`, "====", "", "%", "x".repeat(201)]);
}

function generateCases(rng: Rng, targets: Targets, iterations: number): Case[] {
  const cases: Case[] = [];
  const proposalBody = () => ({
    agentId: targets.agent,
    bidUsdc: 20,
    etaDays: 2,
    message: "fuzz bid",
  });
  for (let index = 0; index < iterations; index++) {
    const kind = rng.int(14);
    let endpoint: string;
    let path: string;
    let valid: Record<string, unknown> = {};
    let caller: Caller;
    let method: "GET" | "POST" = "POST";
    // The rightful caller mostly, so that validation and the domain rules are both reached.
    const who = (rightful: Caller): Caller =>
      rng.chance(0.85) ? rightful : rng.pick<Caller>(["poster", "operator", "stranger", "anon"]);
    switch (kind) {
      case 0:
        endpoint = "POST jobs";
        path = "/api/v1/jobs";
        caller = who("poster");
        valid = validJobBody({
          category: rng.pick(CATEGORIES),
          requirements: ["one", "two"],
          handle: "@fuzz",
        });
        break;
      case 1: {
        endpoint = "POST proposals";
        const jobId = rng.chance(0.5) ? targets.openJob : rng.pick(targets.allJobs);
        path = `/api/v1/jobs/${idOr(rng, jobId)}/proposals`;
        caller = who("operator");
        valid = proposalBody();
        break;
      }
      case 2:
        endpoint = "POST reject";
        path = `/api/v1/jobs/${idOr(rng, targets.rejectJob)}/proposals/${idOr(rng, rng.pick(targets.rejectProposals))}/reject`;
        caller = who("poster");
        break;
      case 3:
        endpoint = "POST accept";
        path = `/api/v1/jobs/${idOr(rng, targets.openJob)}/accept`;
        caller = who("poster");
        valid = { proposalId: targets.openProposal, txHash: targets.openTxHash };
        break;
      case 4:
        endpoint = "POST deliver";
        path = `/api/v1/jobs/${idOr(rng, targets.deliverJob)}/deliver`;
        caller = who("operator");
        valid = rng.chance(0.5)
          ? {}
          : {
              attachments: [
                {
                  name: "notes.txt",
                  size: 5,
                  type: "text/plain",
                  dataUrl: "data:text/plain;base64,aGVsbG8=",
                },
              ],
            };
        break;
      case 5:
        endpoint = "POST complete";
        path = `/api/v1/jobs/${idOr(rng, targets.completeJob)}/complete`;
        caller = who("poster");
        valid = rng.chance(0.5) ? { rating: 5, comment: "great" } : {};
        break;
      case 6:
        endpoint = "POST reviews";
        path = "/api/v1/reviews";
        caller = who("poster");
        valid = {
          agentId: targets.agent,
          jobId: targets.reviewJob,
          rating: 4,
          comment: "fuzz review",
        };
        break;
      case 7:
        endpoint = "POST agents";
        path = "/api/v1/agents";
        caller = who("operator");
        valid = {
          name: "Fuzz agent",
          categories: ["research", rng.pick(CATEGORIES.slice(1))],
          description: "made by the fuzzer",
          ...(rng.chance(0.3)
            ? { walletAddress: "0x000000000000000000000000000000000000dEaD" }
            : {}),
        };
        break;
      case 8:
        endpoint = "POST auth/verify";
        path = "/api/auth/verify";
        caller = "anon";
        valid = {
          message: siweLikeMessage(rng),
          signature: `0x${"ab".repeat(65)}`,
        };
        break;
      case 9:
        method = "GET";
        endpoint = "GET jobs";
        path = `/api/v1/jobs${queryString(rng, ["status", "category", "limit", "cursor"])}`;
        caller = "anon";
        break;
      case 10:
        method = "GET";
        endpoint = "GET proposals";
        path = `/api/v1/jobs/${idOr(rng, rng.pick(targets.allJobs))}/proposals${queryString(rng, ["status", "limit", "cursor"])}`;
        caller = "anon";
        break;
      case 11:
        method = "GET";
        endpoint = "GET reviews";
        path = `/api/v1/reviews${queryString(rng, ["agentId", "agentId", "limit", "cursor"])}`;
        caller = "anon";
        break;
      case 12:
        method = "GET";
        endpoint = "GET agents";
        path = `/api/v1/agents${queryString(rng, ["category", "limit", "cursor"])}`;
        caller = "anon";
        break;
      default:
        method = "GET";
        endpoint = "GET by id";
        path = rng.pick([
          `/api/v1/jobs/${idOr(rng, rng.pick(targets.allJobs))}`,
          `/api/v1/agents/${idOr(rng, targets.agent)}`,
          `/api/v1/jobs/${idOr(rng, rng.pick(targets.allJobs))}/attachments/${junkId(rng)}`,
        ]);
        caller = "anon";
    }
    if (method === "GET") {
      cases.push({ index, endpoint, method, path, caller });
      continue;
    }
    const { body, oversized } = makeBody(
      rng,
      valid,
      endpoint === "POST deliver" ? DELIVER_LIMIT : JSON_LIMIT,
    );
    const contentType = body === undefined && rng.chance(0.5) ? undefined : rng.pick(CONTENT_TYPES);
    cases.push({ index, endpoint, method, path, caller, body, contentType, oversized });
  }
  return cases;
}

function siweLikeMessage(rng: Rng): string {
  const lines = [
    "127.0.0.1 wants you to sign in with your Ethereum account:",
    "0x000000000000000000000000000000000000dEaD",
    "",
    "Sign in to the Agent Marketplace.",
    "",
    "URI: http://127.0.0.1",
    "Version: 1",
    "Chain ID: 31337",
    `Nonce: ${"a".repeat(32)}`,
    `Issued At: ${new Date().toISOString()}`,
  ];
  for (let i = rng.int(4); i > 0; i--) {
    const at = rng.int(lines.length);
    switch (rng.int(4)) {
      case 0:
        lines.splice(at, 1);
        break;
      case 1:
        lines[at] = randomString(rng).slice(0, 200);
        break;
      case 2:
        lines[at] = `${lines[at]}${rng.pick(["\u0000", "😀", " ", "x".repeat(300), "Nonce: x"])}`;
        break;
      default:
        lines.splice(at, 0, lines[at]!);
    }
  }
  return rng.chance(0.1) ? randomString(rng) : lines.join("\n");
}

// ---------------------------------------------------------------------------------------

const KINDS: DbKind[] = TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

// Thousands of requests per database, in batches that each have their own time budget.
describe.each(KINDS)("fuzzing every write and list endpoint on %s", (kind) => {
  let server: RunningServer;
  let chain: TestChain | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  let cast: Cast;
  let clients: Record<Caller, ApiClient>;
  let targets: Targets;

  beforeAll(async () => {
    chain = await startTestChain();
    const database = await prepareServerDatabase(kind);
    cleanup = database.cleanup;
    server = await startServer({
      ...database.env,
      ...BUSY_TEST_SERVER_ENV,
      CHAIN_RPC_URL: chain.rpcUrl,
    });
    cast = await makeCast({ chain, server });
    const stranger = await signedInClient(server.url);
    clients = {
      poster: cast.poster,
      operator: cast.operator,
      stranger,
      anon: new ApiClient(server.url),
    };

    // One job per state, each the target of the operations valid in it.
    const open = await createJob(cast.poster);
    const openProposal = await submitProposal(cast.operator, open.id, cast.agent.id);
    const openTxHash = await paySettlement(cast, open.id, openProposal.id);
    const rejectJob = await createJob(cast.poster);
    const rivals = await Promise.all([0, 1, 2].map((i) => registerAgent(stranger, `Rival ${i}`)));
    const rejectProposals = [
      await submitProposal(cast.operator, rejectJob.id, cast.agent.id),
      ...(await Promise.all(
        rivals.map((agent) => submitProposal(stranger, rejectJob.id, agent.id)),
      )),
    ];
    const deliver = await jobInProgress(cast);
    const review = await jobInProgress(cast);
    const complete = await deliveredJob(cast);
    targets = {
      openJob: open.id,
      openProposal: openProposal.id,
      openTxHash,
      rejectJob: rejectJob.id,
      rejectProposals: rejectProposals.map((p) => p.id),
      deliverJob: deliver.job.id,
      reviewJob: review.job.id,
      completeJob: complete.job.id,
      agent: cast.agent.id,
      allJobs: [open.id, rejectJob.id, deliver.job.id, review.job.id, complete.job.id],
    };
  });

  afterAll(async () => {
    await server?.stop();
    await chain?.stop();
    await cleanup?.();
  });

  async function counts() {
    const jobs = await listAll(clients.anon, "/api/v1/jobs");
    const agents = await listAll(clients.anon, "/api/v1/agents");
    let proposals = 0;
    for (const job of jobs) {
      proposals += (await listAll(clients.anon, `/api/v1/jobs/${job.id}/proposals?status=all`))
        .length;
    }
    let reviews = 0;
    for (const agent of agents) {
      reviews += (await listAll(clients.anon, `/api/v1/reviews?agentId=${agent.id}`)).length;
    }
    return { jobs: jobs.length, agents: agents.length, proposals, reviews };
  }

  async function send(testCase: Case): Promise<ApiResponse> {
    const headers: Record<string, string> = {};
    if (testCase.contentType) headers["content-type"] = testCase.contentType;
    return clients[testCase.caller].request(testCase.method, testCase.path, {
      body: testCase.body,
      headers,
    });
  }

  // The run as separate tests, each with its own time budget: the walk that counts every
  // row before, the requests in batches, then the checks on what they left behind.
  let before: Awaited<ReturnType<typeof counts>>;
  let cases: Case[] = [];
  const outcomes: { testCase: Case; response: ApiResponse }[] = [];
  const created = (endpoint: string, status = 201) =>
    outcomes.filter((o) => o.testCase.endpoint === endpoint && o.response.status === status);

  it("walks every list before the run", { timeout: 60_000 }, async () => {
    before = await counts();
    cases = generateCases(new Rng(SEED + (kind === "postgres" ? 1 : 0)), targets, ITERATIONS[kind]);
    expect(cases).toHaveLength(ITERATIONS[kind]);
  });

  const batchSize = Math.ceil(ITERATIONS[kind] / BATCHES);
  it.each(Array.from({ length: BATCHES }, (_, batch) => batch))(
    `keeps the envelope and never answers 5xx: batch %i of ${BATCHES} (seed ${SEED})`,
    { timeout: BATCH_TIMEOUT_MS },
    async (batch) => {
      const slice = cases.slice(batch * batchSize, (batch + 1) * batchSize);
      expect(slice.length, "the cases were generated").toBeGreaterThan(0);
      /** Bad responses grouped by endpoint, status and problem: count and first example. */
      const failures = new Map<string, { count: number; example: string }>();
      const fail = (key: string, example: string) => {
        const entry = failures.get(key) ?? { count: 0, example };
        entry.count += 1;
        failures.set(key, entry);
      };
      let next = 0;
      const worker = async () => {
        while (next < slice.length) {
          const testCase = slice[next++]!;
          let response: ApiResponse;
          try {
            response = await send(testCase);
          } catch (error) {
            fail(
              `${testCase.endpoint}: request failed`,
              `#${testCase.index} ${testCase.path}: ${String(error)}`,
            );
            continue;
          }
          outcomes.push({ testCase, response });
          const problem = checkResponse(testCase, response);
          if (problem) {
            fail(
              `${testCase.endpoint} → ${response.status}: ${problem}`,
              `#${testCase.index} ${testCase.method} ${testCase.path.slice(0, 200)} as ${testCase.caller}` +
                ` (${testCase.contentType ?? "no content-type"}) body ${JSON.stringify(testCase.body?.slice(0, 200))}` +
                ` → ${response.status} ${JSON.stringify(response.body)?.slice(0, 300)}: ${problem}`,
            );
          }
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      const report = [...failures].map(
        ([key, { count, example }]) => `${count}× ${key}; e.g. ${example}`,
      );
      expect(report, `bad responses (seed ${SEED}, batch ${batch})`).toEqual([]);
    },
  );

  it("is alive afterwards, with no unhandled error in its log", async () => {
    const tally: Record<string, Record<number, number>> = {};
    for (const { testCase, response } of outcomes) {
      tally[testCase.endpoint] ??= {};
      tally[testCase.endpoint]![response.status] =
        (tally[testCase.endpoint]![response.status] ?? 0) + 1;
    }
    console.info(
      `fuzz on ${kind}, seed ${SEED}, ${outcomes.length} requests:`,
      JSON.stringify(tally),
    );
    expect(outcomes).toHaveLength(cases.length);
    expect((await clients.anon.get("/api/v1/jobs?limit=1")).status).toBe(200);
    expect(server.logs()).not.toMatch(/Unhandled error|uncaught|FATAL/i);
  });

  it(
    "wrote nothing partially: every count moved only by the creations answered 201",
    { timeout: 60_000 },
    async () => {
      // complete's optional review counts as a creation when it answered 200 with a rating.
      const completions = created("POST complete", 200);
      expect(completions.length).toBeLessThanOrEqual(1);
      const completedWithRating = completions.filter((o) => {
        const body = JSON.parse(o.testCase.body?.trim() || "{}") as { rating?: unknown };
        return body.rating !== undefined;
      }).length;
      const after = await counts();
      expect(after).toEqual({
        jobs: before.jobs + created("POST jobs").length,
        agents: before.agents + created("POST agents").length,
        proposals: before.proposals + created("POST proposals").length,
        reviews: before.reviews + created("POST reviews").length + completedWithRating,
      });
    },
  );

  it("moved each target job only as its successful transitions say", async () => {
    const job = async (id: string) =>
      expectStatus(await clients.anon.get(`/api/v1/jobs/${id}`), 200).data;
    const accepted = created("POST accept", 200).length > 0;
    expect((await job(targets.openJob)).status).toBe(accepted ? "in_progress" : "open");
    expect((await job(targets.deliverJob)).status).toBe(
      created("POST deliver", 200).length > 0 ? "delivered" : "in_progress",
    );
    expect((await job(targets.completeJob)).status).toBe(
      created("POST complete", 200).length > 0 ? "completed" : "delivered",
    );
    expect((await job(targets.rejectJob)).status).toBe("open");
    expect((await job(targets.reviewJob)).status).toBe("in_progress");
    const rejected = (
      await listAll(clients.anon, `/api/v1/jobs/${targets.rejectJob}/proposals?status=all`)
    ).filter((p) => p.status === "rejected");
    expect(rejected).toHaveLength(created("POST reject", 200).length);
    expect(created("POST reviews").length).toBeLessThanOrEqual(1);
  });
});

/** The per-response properties; returns a description of what is wrong, or nothing. */
function checkResponse(testCase: Case, response: ApiResponse): string | undefined {
  const { status, body, headers } = response;
  if (status >= 500) return "5xx";
  if (![200, 201, 400, 401, 402, 403, 404, 409, 413, 415].includes(status))
    return `unexpected status ${status}`;
  if (testCase.oversized && status !== 413 && status !== 401)
    return "oversized body not refused with 413";
  if (!headers.get("content-type")?.startsWith("application/json")) return "not JSON";
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return "body is not a JSON object";
  if (status < 300) {
    if (!("data" in body)) return "2xx without data";
    const extra = Object.keys(body).filter((key) => key !== "data" && key !== "meta");
    if (extra.length > 0) return `2xx with extra keys ${extra}`;
    if (status === 201 && testCase.method !== "POST") return "201 on a read";
    return undefined;
  }
  const envelope = body as { error?: unknown; code?: unknown };
  if (
    Object.keys(body).sort().join(",") !== "code,error" ||
    typeof envelope.error !== "string" ||
    envelope.error.length === 0 ||
    !/^[a-z][a-z0-9_]*$/.test(String(envelope.code))
  ) {
    return "4xx without exactly { error: string, code: snake_case }";
  }
  if (/\bat \S+\.[cm]?[jt]s:\d+|Prisma|DriverAdapter/.test(envelope.error)) {
    return "error message leaks internals";
  }
  return undefined;
}
