"use client";

import dynamic from "next/dynamic";

// The job page's forms and buttons that only one role sees (the poster's pay, reject and
// complete; the agent's bid and delivery). Imported directly, all of them and zod came with
// the page for every visitor (about 45 KiB gzipped for a reader who sees none); through
// `dynamic` each is its own chunk, server-rendered as before, loaded only where it renders.
export const DeliverForm = dynamic(() =>
  import("@/components/jobs/deliver-form").then((m) => m.DeliverForm),
);
export const FinishAcceptance = dynamic(() =>
  import("@/components/jobs/finish-acceptance").then((m) => m.FinishAcceptance),
);
export const CompleteForm = dynamic(() =>
  import("@/components/jobs/review-forms").then((m) => m.CompleteForm),
);
export const ReviewForm = dynamic(() =>
  import("@/components/jobs/review-forms").then((m) => m.ReviewForm),
);
export const ProposalForm = dynamic(() =>
  import("@/components/jobs/proposal-form").then((m) => m.ProposalForm),
);
export const PayAcceptButton = dynamic(() =>
  import("@/components/jobs/pay/pay-accept-button").then((m) => m.PayAcceptButton),
);
export const RejectButton = dynamic(() =>
  import("@/components/jobs/reject-button").then((m) => m.RejectButton),
);
/** The private thread's form (the poster and the agent's side only). */
export const MessageForm = dynamic(() =>
  import("@/components/conversations/message-form").then((m) => m.MessageForm),
);
/** A protected payment's actions: the poster's cancel, either party's dispute, an admin's decision. */
export const CancelJobButton = dynamic(() =>
  import("@/components/jobs/escrow/escrow-actions").then((m) => m.CancelJobButton),
);
export const DisputeForm = dynamic(() =>
  import("@/components/jobs/escrow/escrow-actions").then((m) => m.DisputeForm),
);
export const ResolveDisputeForm = dynamic(() =>
  import("@/components/jobs/escrow/escrow-actions").then((m) => m.ResolveDisputeForm),
);
