import { describe, expect, it } from "vitest";
import {
  availableOperations,
  BEFORE_DELIVERY,
  checkRole,
  checkState,
  OPERATIONS,
  type Operation,
} from "./lifecycle";
import type { JobStatus } from "@/lib/shared/enums";

const POSTER = "0xPoster00000000000000000000000000000000a";
const AGENT_WALLET = "0xAgent000000000000000000000000000000000b";
const OPERATOR = "0xOperator0000000000000000000000000000000c";
const STRANGER = "0xStranger0000000000000000000000000000000d";
const agentWallets = [AGENT_WALLET, OPERATOR];

describe("the spec's state table (section 3)", () => {
  it.each([
    // operation, from,           to
    ["accept", "open", "in_progress"],
    ["deliver", "in_progress", "delivered"],
    ["complete", "delivered", "completed"],
    ["reject", "open", "open"],
    ["propose", "open", "open"],
    ["pay", "open", "open"],
    ["review", "in_progress", "in_progress"],
  ] as const)("%s: %s → %s", (operation, from, to) => {
    expect(OPERATIONS[operation]).toMatchObject({ from, to });
  });

  it("leads no job back to a state before delivery once it has left them (job-rows.ts)", () => {
    const before = (status: JobStatus) => BEFORE_DELIVERY.includes(status);
    expect(OPERATIONS.deliver).toMatchObject({ from: "in_progress", to: "delivered" });
    expect(before(OPERATIONS.deliver.from) && !before(OPERATIONS.deliver.to)).toBe(true);
    for (const rule of Object.values(OPERATIONS)) {
      if (!before(rule.from)) expect(before(rule.to)).toBe(false);
    }
  });

  const statuses = ["open", "in_progress", "delivered", "completed"] as const;
  it.each(
    (Object.keys(OPERATIONS) as Operation[]).flatMap((operation) =>
      statuses.map((status) => [operation, status, status === OPERATIONS[operation].from] as const),
    ),
  )("%s on a %s job allowed: %s (409 otherwise)", (operation, status, allowed) => {
    expect(checkState(operation, status).allowed).toBe(allowed);
  });
});

describe("role rules (spec section 5, contract 403 list)", () => {
  it.each([
    // operation,  caller,        allowed
    ["reject", POSTER, true],
    ["reject", STRANGER, false],
    ["reject", OPERATOR, false],
    ["accept", POSTER, true],
    ["accept", STRANGER, false],
    ["complete", POSTER, true],
    ["complete", AGENT_WALLET, false],
    ["review", POSTER, true],
    ["review", OPERATOR, false],
    ["deliver", AGENT_WALLET, true],
    ["deliver", OPERATOR, true],
    ["deliver", POSTER, false],
    ["deliver", STRANGER, false],
    ["propose", OPERATOR, true],
    ["propose", AGENT_WALLET, true],
    ["propose", STRANGER, false],
    ["pay", POSTER, true],
    ["pay", STRANGER, false],
    ["pay", AGENT_WALLET, false],
  ] as const)("%s by %s: %s", (operation, caller, allowed) => {
    expect(checkRole(operation, { caller, posterAddress: POSTER, agentWallets }).allowed).toBe(
      allowed,
    );
  });

  it("a poster cannot bid on their own job, even with an agent they operate", () => {
    const result = checkRole("propose", {
      caller: POSTER,
      posterAddress: POSTER,
      agentWallets: [POSTER],
    });
    expect(result).toEqual({
      allowed: false,
      reason: "you cannot bid on your own job",
      code: "own_job",
    });
  });

  it("compares addresses case-insensitively", () => {
    expect(
      checkRole("accept", { caller: POSTER.toLowerCase(), posterAddress: POSTER }).allowed,
    ).toBe(true);
  });
});

describe("actions offered to a viewer", () => {
  it.each([
    ["open", POSTER, false, ["reject", "accept"]],
    ["open", OPERATOR, false, ["propose"]],
    ["in_progress", POSTER, true, ["review"]],
    ["in_progress", OPERATOR, true, ["deliver"]],
    ["delivered", POSTER, true, ["complete"]],
    ["completed", POSTER, true, []],
    ["in_progress", STRANGER, true, []],
  ] as const)("%s job, viewer %s (paid %s): %j", (status, caller, paid, expected) => {
    expect(
      availableOperations(status, { caller, posterAddress: POSTER, agentWallets, paid }),
    ).toEqual(expected);
  });
});
