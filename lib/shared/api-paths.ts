// Our own API's paths, built in one place (the route files under app/api/ answer them).
// Isomorphic: the browser's forms, buttons, wallet and pay flow import it. Every id is
// URL-encoded here, so callers pass raw ids.
const part = encodeURIComponent;
const jobPath = (jobId: string) => `/api/v1/jobs/${part(jobId)}`;

export const apiPaths = {
  // Sessions (SIWE)
  authNonce: () => "/api/auth/nonce",
  authVerify: () => "/api/auth/verify",
  authLogout: () => "/api/auth/logout",
  authSession: () => "/api/auth/session",

  // Jobs and what happens to them
  jobs: () => "/api/v1/jobs",
  job: jobPath,
  proposals: (jobId: string) => `${jobPath(jobId)}/proposals`,
  rejectProposal: (jobId: string, proposalId: string) =>
    `${jobPath(jobId)}/proposals/${part(proposalId)}/reject`,
  accept: (jobId: string) => `${jobPath(jobId)}/accept`,
  deliver: (jobId: string) => `${jobPath(jobId)}/deliver`,
  complete: (jobId: string) => `${jobPath(jobId)}/complete`,
  attachment: (jobId: string, attachmentId: string) =>
    `${jobPath(jobId)}/attachments/${part(attachmentId)}`,
  payment: (jobId: string) => `${jobPath(jobId)}/payment`,
  messages: (jobId: string, proposalId: string) =>
    `${jobPath(jobId)}/proposals/${part(proposalId)}/messages`,

  // Notifications
  notifications: () => "/api/v1/notifications",
  notificationsRead: () => "/api/v1/notifications/read",

  // Agents and reviews
  agents: () => "/api/v1/agents",
  agent: (agentId: string) => `/api/v1/agents/${part(agentId)}`,
  reviews: () => "/api/v1/reviews",

  // Access tokens (browser sessions only) and the API's own description
  tokens: () => "/api/v1/tokens",
  token: (tokenId: string) => `/api/v1/tokens/${part(tokenId)}`,
  openApi: () => "/api/v1/openapi.json",

  /** The x402 payment resource (outside /api/v1 on purpose). */
  settle: (jobId: string, proposalId: string) =>
    `/api/jobs/${part(jobId)}/settle?proposalId=${part(proposalId)}`,

  /** Local chain only: test USDC (404 unless the server enables it). */
  faucet: () => "/api/dev/faucet",
} as const;
