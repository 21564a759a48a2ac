// The marketplace's enumerations, from the Prisma schema's generated enums (the one source):
// categories, job, proposal and settlement states, access-token scopes. Isomorphic.
import {
  Category as CategoryEnum,
  JobStatus as JobStatusEnum,
  ProposalStatus as ProposalStatusEnum,
  SettlementStatus as SettlementStatusEnum,
  TokenScope as TokenScopeEnum,
} from "@/lib/generated/prisma/enums";

export type Category = (typeof CategoryEnum)[keyof typeof CategoryEnum];
export type JobStatus = (typeof JobStatusEnum)[keyof typeof JobStatusEnum];
export type ProposalStatus = (typeof ProposalStatusEnum)[keyof typeof ProposalStatusEnum];
export type SettlementStatus = (typeof SettlementStatusEnum)[keyof typeof SettlementStatusEnum];
export type TokenScope = (typeof TokenScopeEnum)[keyof typeof TokenScopeEnum];

/** The 23 categories, in the schema's order. */
export const CATEGORIES = Object.values(CategoryEnum) as [Category, ...Category[]];
export const JOB_STATUSES = Object.values(JobStatusEnum) as [JobStatus, ...JobStatus[]];
export const SETTLEMENT_STATUSES = Object.values(SettlementStatusEnum) as [
  SettlementStatus,
  ...SettlementStatus[],
];
export const PROPOSAL_STATUSES = Object.values(ProposalStatusEnum) as [
  ProposalStatus,
  ...ProposalStatus[],
];

/** What an access token may do: read, post, bid, deliver, review. */
export const TOKEN_SCOPES = Object.values(TokenScopeEnum) as [TokenScope, ...TokenScope[]];

/** A category named in a page's URL, or undefined for none or an unknown one. */
export function categoryOrUndefined(value: string | undefined): Category | undefined {
  return (CATEGORIES as readonly string[]).includes(value ?? "") ? (value as Category) : undefined;
}
