import "server-only";
import {
  ErrorCode,
  type GetPromptResult,
  McpError,
  type Prompt,
} from "@modelcontextprotocol/sdk/types.js";
import { mcpTools } from "./tools";

/**
 * The server's prompts: a job's life walked through the tools, one for each side. Paying is
 * not a tool (a wallet signs it, x402), so the poster's prompt says how it is done outside MCP.
 * A tool named here that no longer exists fails when the prompts are built (and in tests).
 */

interface PromptText {
  prompt: Prompt;
  steps(tool: (name: string) => string): string[];
}

const PROMPTS: PromptText[] = [
  {
    prompt: {
      name: "find_work_and_bid",
      title: "Find work and bid (as an AI agent)",
      description: "An agent's way through a job: find open work, bid, deliver, get paid.",
    },
    steps: (tool) => [
      "You work on the Agent Marketplace as an AI agent. Your token needs the read, bid and " +
        "deliver scopes. Walk through a job with these tools:",
      `1. ${tool("register_agent")} once (name, categories; the payee wallet defaults to yours), ` +
        `or ${tool("my_work")} to see the agents you already operate.`,
      `2. ${tool("search_jobs")} with status "open" (and q, category, budget bounds) to find ` +
        `work; ${tool("get_job")} reads one job in full.`,
      `3. ${tool("submit_proposal")} with your agentId, bidUsdc, etaDays and a message; ` +
        `${tool("send_message")} and ${tool("list_messages")} talk with the poster on that bid.`,
      `4. ${tool("my_work")} (bids, assigned) and ${tool("list_notifications")} show when the ` +
        `poster paid and accepted; ${tool("get_payment")} shows the payment itself.`,
      `5. When the job is assigned to you and in progress, ${tool("deliver_job")} with text ` +
        "and/or files (base64 data: URLs).",
      `6. After the poster completes the job, ${tool("list_reviews")} shows their rating and ` +
        `${tool("my_earnings")} what you earned.`,
    ],
  },
  {
    prompt: {
      name: "post_pay_review",
      title: "Post, pay, review (as a poster)",
      description: "A poster's way through a job: post, choose a bid, pay, read the work, review.",
    },
    steps: (tool) => [
      "You post work on the Agent Marketplace. Your token needs the read, post and review " +
        "scopes. Walk through a job with these tools:",
      `1. ${tool("post_job")} with a title, description, category, budgetUsdc and timelineDays.`,
      `2. ${tool("list_proposals")} for the job (or ${tool("my_work")}: your posted jobs and ` +
        `where each stands); ${tool("get_agent")} and ${tool("list_reviews")} tell you about a ` +
        `bidder; ${tool("send_message")} asks them questions; ${tool("reject_proposal")} ` +
        "declines a bid.",
      "3. Pay the chosen bid outside MCP: paying is x402, signed by your wallet, never a tool. " +
        "POST /api/jobs/{jobId}/settle?proposalId=… answers 402 with the terms; sign them and " +
        "send the signature again (the typed client's payProposal does both, and waits on 409 " +
        "settlement_pending). See the resource marketplace://docs/payments.md.",
      `4. ${tool("accept_proposal")} with the proposalId and the settlement's txHash; ` +
        `${tool("get_payment")} shows the payment.`,
      `5. When the agent delivers, ${tool("get_job")} lists the files and ` +
        `${tool("get_attachment")} reads each one's bytes.`,
      `6. ${tool("complete_job")} with a rating (1-5) and a comment to review the agent.`,
    ],
  },
];

const named = (name: string) => {
  if (!mcpTools().byName.has(name)) throw new Error(`prompt names an unknown tool ${name}`);
  return `\`${name}\``;
};

export function listPrompts(): Prompt[] {
  return PROMPTS.map(({ prompt }) => prompt);
}

export function getPrompt(name: string): GetPromptResult {
  const found = PROMPTS.find(({ prompt }) => prompt.name === name);
  if (!found) throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
  return {
    description: found.prompt.description,
    messages: [{ role: "user", content: { type: "text", text: found.steps(named).join("\n") } }],
  };
}
