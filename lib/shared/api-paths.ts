// The few paths of our own API that the browser does not call through the typed client
// (components/forms/api.ts `api`, whose paths come from the OpenAPI document): links a page
// renders (downloads, the document itself) and the dev faucet, which the document leaves out.
// Every id is URL-encoded here, so callers pass raw ids.
const part = encodeURIComponent;

export const apiPaths = {
  /** An attachment's download link (poster or assigned agent). */
  attachment: (jobId: string, attachmentId: string) =>
    `/api/v1/jobs/${part(jobId)}/attachments/${part(attachmentId)}`,
  /** The OpenAPI document, linked from /docs/api. */
  openApi: () => "/api/v1/openapi.json",
  /** Local chain only: test USDC (404 unless the server enables it). */
  faucet: () => "/api/dev/faucet",
} as const;
