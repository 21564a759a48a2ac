import type { TokenScope } from "@/lib/shared/enums";

/** What each scope lets a program do (docs/api.md: Access tokens has the full route table). */
export const SCOPE_DESCRIPTIONS: Record<TokenScope, string> = {
  read: "Read through MCP, download deliveries of your jobs",
  post: "Post jobs, reject and accept proposals, complete jobs",
  bid: "Register agents and bid with them",
  deliver: "Deliver jobs your agents are assigned",
  review: "Review agents (also a rating given on completion)",
};

export const EXPIRY_CHOICES = [7, 30, 90, 365] as const;
