// The OpenAPI document: valid OpenAPI 3.1, one operation (with its operationId, security and
// error codes) for every contract and none more, the typed client's generated types in step with it, and the checker the HTTP suites
// run every answer through refuses what does not match.
import fs from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES_FILE, generateClientTypes } from "@/tools/generate-client";
import { assertMatchesApiDocument, useApiDocument } from "@/tests/helpers/openapi";
import { ERROR_CODE_NAMES } from "@/lib/shared/error-codes";
import { allOperations } from "../operations";
import { apiDocument } from "./document";

function documentedOperations(): string[] {
  const paths = apiDocument().paths ?? {};
  return Object.entries(paths)
    .flatMap(([route, item]) =>
      ["get", "post", "put", "patch", "delete"]
        .filter((method) => item && method in item)
        .map((method) => `${method.toUpperCase()} ${route}`),
    )
    .sort();
}

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    const result = await new Validator().validate(apiDocument() as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(apiDocument().openapi).toBe("3.1.0");
  });

  it("documents every operation of the contracts, each with an operationId and security", () => {
    const operations = allOperations().map((operation) => `${operation.method} ${operation.path}`);
    expect(operations.length).toBeGreaterThan(30);
    expect(documentedOperations()).toEqual([...operations].sort());
    const ids: string[] = [];
    for (const item of Object.values(apiDocument().paths ?? {})) {
      for (const operation of Object.values(item ?? {}) as {
        operationId?: string;
        security?: unknown;
      }[]) {
        expect(operation.operationId).toMatch(/^[a-z][A-Za-z]+$/);
        expect(Array.isArray(operation.security)).toBe(true);
        ids.push(operation.operationId!);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("lists every error code the API has, and each operation its own per status", () => {
    const error = (
      apiDocument().components?.schemas as Record<
        string,
        { properties: { code: { enum: string[] } } }
      >
    ).Error!;
    expect(error.properties.code.enum).toEqual(ERROR_CODE_NAMES);
    const accept = apiDocument().paths!["/api/v1/jobs/{id}/accept"]!.post!;
    const conflicts = (
      accept.responses as Record<string, { content: { "application/json": { examples: object } } }>
    )["409"]!;
    expect(Object.keys(conflicts.content["application/json"].examples).sort()).toEqual([
      "job_not_open",
      "payment_expired",
      "payment_not_held",
      "proposal_not_pending",
    ]);
  });

  it("gives every operation its error answers with examples", () => {
    for (const [route, item] of Object.entries(apiDocument().paths ?? {})) {
      for (const [method, operation] of Object.entries(item ?? {})) {
        const statuses = Object.keys((operation as { responses: object }).responses);
        expect(
          statuses.some((s) => s.startsWith("2")),
          `${method} ${route}`,
        ).toBe(true);
        expect(
          statuses.some((s) => /^[45]/.test(s)),
          `${method} ${route}`,
        ).toBe(true);
      }
    }
  });

  it("is what the typed client's types were generated from (npm run client:generate)", async () => {
    expect(fs.readFileSync(CLIENT_TYPES_FILE, "utf8")).toBe(await generateClientTypes());
  });
});

describe("the checker every HTTP suite runs its answers through", () => {
  useApiDocument(apiDocument());
  const url = "http://127.0.0.1:3000/api/v1/jobs/job_1";
  // A public read's answer: JSON with its ETag and revalidation headers.
  const json = new Headers({
    "content-type": "application/json",
    etag: '"0123456789abcdef0123456789abcdef"',
    "cache-control": "public, max-age=0, must-revalidate",
  });
  const job = {
    id: "job_1",
    title: "t",
    description: "d",
    category: "data",
    budgetUsdc: 5,
    timelineDays: 2,
    requirements: [],
    handle: "@h",
    status: "open",
    posterAddress: "0x22d491Bde2303f2f43325b2108D26f1eAbA1e32b",
    posterVerified: true,
    assignedAgentId: null,
    acceptedProposalId: null,
    paymentTxHash: null,
    attachments: [],
    createdAt: "2026-11-22T10:00:00.000Z",
    updatedAt: "2026-11-22T10:00:00.000Z",
    deliveredAt: null,
    completedAt: null,
  };

  it("accepts a documented answer", () => {
    expect(() => assertMatchesApiDocument("GET", url, 200, json, { data: job })).not.toThrow();
  });

  it("refuses a body that does not match, an undocumented status, a missing header", () => {
    const { status: _status, ...noStatus } = job;
    expect(() => assertMatchesApiDocument("GET", url, 200, json, { data: noStatus })).toThrow(
      /must have required property 'status'/,
    );
    expect(() =>
      assertMatchesApiDocument("GET", url, 200, json, { data: { ...job, status: "paid" } }),
    ).toThrow(/does not match/);
    expect(() => assertMatchesApiDocument("GET", url, 409, json, { error: "x" })).toThrow(
      /not documented/,
    );
    expect(() =>
      assertMatchesApiDocument(
        "POST",
        "http://127.0.0.1:3000/api/jobs/job_1/settle?proposalId=p",
        402,
        json,
        { error: "payment required", code: "payment_required" },
      ),
    ).toThrow(/missing header payment-required/);
    expect(() =>
      assertMatchesApiDocument("GET", "http://127.0.0.1:3000/api/v1/nothing", 200, json, {}),
    ).toThrow(/not in the OpenAPI document/);
  });
});
