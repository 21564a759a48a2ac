// What each viewer is offered on a job's page in each state, as a table (the page renders this
// decision and nothing else).
import { describe, expect, it } from "vitest";
import {
  decideJobActions,
  type JobActionFacts,
  type JobActions,
  type ViewerRole,
} from "./job-page";

type State =
  | "open"
  | "open, payment settling"
  | "open, paid, not accepted"
  | "in progress"
  | "in progress, reviewed"
  | "delivered"
  | "completed";

const STATES: Record<State, Omit<JobActionFacts, "role" | "viewerAgents" | "biddingAgentIds">> = {
  open: {
    status: "open",
    paid: false,
    settlement: null,
    posterReviewed: false,
    hasAssignedAgent: false,
  },
  "open, payment settling": {
    status: "open",
    paid: false,
    settlement: { status: "pending", proposalId: "prop_1", txHash: null },
    posterReviewed: false,
    hasAssignedAgent: false,
  },
  "open, paid, not accepted": {
    status: "open",
    paid: false,
    settlement: { status: "succeeded", proposalId: "prop_1", txHash: "0xabc" },
    posterReviewed: false,
    hasAssignedAgent: false,
  },
  "in progress": {
    status: "in_progress",
    paid: true,
    settlement: null,
    posterReviewed: false,
    hasAssignedAgent: true,
  },
  "in progress, reviewed": {
    status: "in_progress",
    paid: true,
    settlement: null,
    posterReviewed: true,
    hasAssignedAgent: true,
  },
  delivered: {
    status: "delivered",
    paid: true,
    settlement: null,
    posterReviewed: true,
    hasAssignedAgent: true,
  },
  completed: {
    status: "completed",
    paid: true,
    settlement: null,
    posterReviewed: true,
    hasAssignedAgent: true,
  },
};

type Viewer =
  | "anonymous"
  | "poster"
  | "assigned agent"
  | "bidder with a free agent"
  | "bidder, all agents bid"
  | "visitor without agents";

const VIEWERS: Record<Viewer, Pick<JobActionFacts, "role" | "viewerAgents" | "biddingAgentIds">> = {
  anonymous: { role: "anonymous", viewerAgents: [], biddingAgentIds: new Set() },
  poster: { role: "poster", viewerAgents: [], biddingAgentIds: new Set() },
  "assigned agent": {
    role: "assigned_agent",
    viewerAgents: [{ id: "agent_1", name: "Lens" }],
    biddingAgentIds: new Set(["agent_1"]),
  },
  "bidder with a free agent": {
    role: "visitor",
    viewerAgents: [{ id: "agent_2", name: "Quill" }],
    biddingAgentIds: new Set(["agent_1"]),
  },
  "bidder, all agents bid": {
    role: "visitor",
    viewerAgents: [{ id: "agent_1", name: "Lens" }],
    biddingAgentIds: new Set(["agent_1"]),
  },
  "visitor without agents": { role: "visitor", viewerAgents: [], biddingAgentIds: new Set() },
};

const none = { reject: false, payAndAccept: false };
const NOTHING: JobActions = {
  panel: null,
  proposal: none,
  payHint: false,
  bidding: null,
  canDownload: false,
};

// state, viewer, what they are offered (differences from NOTHING)
const TABLE: [State, Viewer, Partial<JobActions>][] = [
  ["open", "anonymous", { panel: { kind: "sign_in" } }],
  [
    "open",
    "poster",
    { proposal: { reject: true, payAndAccept: true }, payHint: true, canDownload: true },
  ],
  [
    "open",
    "bidder with a free agent",
    { bidding: { kind: "can_bid", agents: [{ id: "agent_2", name: "Quill" }] } },
  ],
  ["open", "bidder, all agents bid", { bidding: { kind: "already_bid" } }],
  ["open", "visitor without agents", { bidding: { kind: "no_agent" } }],
  // A payment in flight: no reject, no second payment, but others may still bid.
  ["open, payment settling", "anonymous", { panel: { kind: "sign_in" } }],
  ["open, payment settling", "poster", { canDownload: true }],
  [
    "open, payment settling",
    "bidder with a free agent",
    { bidding: { kind: "can_bid", agents: [{ id: "agent_2", name: "Quill" }] } },
  ],
  // Paid and not accepted: the poster finishes the acceptance, nothing else.
  [
    "open, paid, not accepted",
    "poster",
    {
      panel: { kind: "finish_acceptance", proposalId: "prop_1", txHash: "0xabc" },
      canDownload: true,
    },
  ],
  ["open, paid, not accepted", "anonymous", { panel: { kind: "sign_in" } }],
  ["in progress", "anonymous", {}],
  ["in progress", "poster", { panel: { kind: "review" }, canDownload: true }],
  ["in progress", "assigned agent", { panel: { kind: "deliver" }, canDownload: true }],
  ["in progress", "bidder with a free agent", {}],
  [
    "in progress, reviewed",
    "poster",
    { panel: { kind: "waiting_for_delivery" }, canDownload: true },
  ],
  ["in progress, reviewed", "assigned agent", { panel: { kind: "deliver" }, canDownload: true }],
  [
    "delivered",
    "poster",
    { panel: { kind: "complete", alreadyReviewed: true }, canDownload: true },
  ],
  [
    "delivered",
    "assigned agent",
    { panel: { kind: "waiting_for_confirmation" }, canDownload: true },
  ],
  ["delivered", "visitor without agents", {}],
  ["delivered", "anonymous", {}],
  ["completed", "poster", { canDownload: true }],
  ["completed", "assigned agent", { canDownload: true }],
  ["completed", "anonymous", {}],
  ["completed", "bidder with a free agent", {}],
];

describe("what a job's page offers each viewer in each state", () => {
  it.each(TABLE)("%s, seen by %s", (state, viewer, offered) => {
    const role: ViewerRole = VIEWERS[viewer].role;
    expect(role).toBeDefined();
    expect(decideJobActions({ ...STATES[state], ...VIEWERS[viewer] })).toEqual({
      ...NOTHING,
      ...offered,
    });
  });

  it("covers every state for the poster, the assigned agent and a signed-out visitor", () => {
    for (const viewer of ["poster", "assigned agent", "anonymous"] as Viewer[]) {
      const states = new Set(TABLE.filter(([, v]) => v === viewer).map(([state]) => state));
      const expected =
        viewer === "assigned agent"
          ? ["in progress", "in progress, reviewed", "delivered", "completed"]
          : Object.keys(STATES).filter((s) => viewer === "poster" || s !== "in progress, reviewed");
      for (const state of expected)
        expect(states.has(state as State), `${viewer} × ${state}`).toBe(true);
    }
  });
});
