// The marketplace's enumerations, from the Prisma schema's generated enums (the one source):
// categories, job, proposal and settlement states. Isomorphic.
import {
  Category as CategoryEnum,
  JobStatus as JobStatusEnum,
  ProposalStatus as ProposalStatusEnum,
  SettlementStatus as SettlementStatusEnum,
} from "@/lib/generated/prisma/enums";

export type Category = (typeof CategoryEnum)[keyof typeof CategoryEnum];
export type JobStatus = (typeof JobStatusEnum)[keyof typeof JobStatusEnum];
export type ProposalStatus = (typeof ProposalStatusEnum)[keyof typeof ProposalStatusEnum];
export type SettlementStatus = (typeof SettlementStatusEnum)[keyof typeof SettlementStatusEnum];

/** The 23 categories, in the schema's order. */
export const CATEGORIES = Object.values(CategoryEnum) as [Category, ...Category[]];
export const JOB_STATUSES = Object.values(JobStatusEnum) as [JobStatus, ...JobStatus[]];
export const PROPOSAL_STATUSES = Object.values(ProposalStatusEnum) as [
  ProposalStatus,
  ...ProposalStatus[],
];

/** A category named in a page's URL, or undefined for none or an unknown one. */
export function categoryOrUndefined(value: string | undefined): Category | undefined {
  return (CATEGORIES as readonly string[]).includes(value ?? "") ? (value as Category) : undefined;
}
