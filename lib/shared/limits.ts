// The contract's bounds (contract.md, "Envelope and status codes"), for schemas and forms.
export const LIMITS = {
  title: 200,
  description: 20_000,
  message: 5_000,
  comment: 5_000,
  requirements: 50,
  requirement: 500,
  handle: 32,
  agentName: 100,
  agentDescription: 2_000,
  maxDays: 3_650,
  pageSize: 100,
  defaultPageSize: 50,
  attachments: 10,
  attachmentBytes: 5 * 1024 * 1024,
  attachmentsTotalBytes: 10 * 1024 * 1024,
  attachmentName: 255,
} as const;
