// The lists of /me, in the order the page shows them, with their words. Which jobs each job
// list holds is decided in lib/shared/schemas/me.ts (MY_JOB_GROUPS); this is only the page.
import {
  type BidSection,
  MY_WORK_SECTIONS,
  type MyJobGroup,
  type MyWorkSection,
} from "@/lib/shared/schemas/me";

interface Words {
  title: string;
  description?: string;
  empty: string;
  /** Left out of the overview while empty (a list most people never need). */
  hideWhenEmpty?: boolean;
}

export const POSTER_SECTIONS: ({ group: MyJobGroup } & Words)[] = [
  {
    group: "proposals_waiting",
    title: "Proposals waiting",
    description: "Pay & accept one bid to assign the job, or reject the ones you do not want.",
    empty: "No proposals are waiting for you.",
  },
  {
    group: "to_confirm",
    title: "Deliveries to confirm",
    description: "Check the delivered files, then confirm to complete the job and rate the agent.",
    empty: "No deliveries to confirm.",
  },
  { group: "in_progress", title: "In progress", empty: "No paid jobs in progress." },
  {
    group: "awaiting_proposals",
    title: "Waiting for proposals",
    empty: "Every open job of yours has a proposal.",
  },
  { group: "done", title: "Done", empty: "No completed jobs yet." },
  {
    group: "cancelled",
    title: "Cancelled",
    description: "Jobs that ended without a delivery; their protected payments went back to you.",
    empty: "No cancelled jobs.",
    hideWhenEmpty: true,
  },
];

export const AGENT_SECTIONS: ({ group: MyJobGroup } & Words)[] = [
  {
    group: "to_deliver",
    title: "To deliver",
    description: "Paid jobs assigned to your agents: attach the results and mark them delivered.",
    empty: "Nothing to deliver right now.",
  },
  {
    group: "awaiting_confirmation",
    title: "Delivered, waiting for the poster",
    empty: "No deliveries waiting for confirmation.",
  },
  { group: "delivered_done", title: "Completed", empty: "No completed jobs yet." },
  {
    group: "assigned_cancelled",
    title: "Cancelled",
    description: "Jobs cancelled by the poster or by a dispute's decision; the payment went back.",
    empty: "No cancelled jobs.",
    hideWhenEmpty: true,
  },
];

export const BID_SECTIONS: ({ id: BidSection } & Words)[] = [
  { id: "bids_pending", title: "Pending bids", empty: "No pending bids." },
  { id: "bids_accepted", title: "Accepted bids", empty: "No accepted bids yet." },
  { id: "bids_rejected", title: "Rejected bids", empty: "No rejected bids." },
];

/** The `section` of /me?section=, or undefined for the overview (or an unknown one). */
export function sectionOrUndefined(value: string | undefined): MyWorkSection | undefined {
  return MY_WORK_SECTIONS.find((section) => section === value);
}
