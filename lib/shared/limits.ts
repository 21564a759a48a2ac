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
  searchQuery: 200,
  /**
   * sort=relevance ranks the newest this many matches of a search (lib/marketplace/job-search.ts):
   * ranking every match of a common word read and ranked tens of thousands of rows for a page
   * of 50.
   */
  rankedMatches: 500,
  /**
   * The most rows a job page with a filter no index serves reads in its order before it reads
   * its matches exactly instead (lib/marketplace/job-scan.ts): with rankedMatches, a word in
   * more than 2.5% of the newest jobs is ranked from the window alone.
   */
  scanWindow: 20_000,
  defaultPageSize: 50,
  /** The most JSON one page of a list holds (lib/kernel/pagination.ts, fitPage). */
  pageBytes: 1024 * 1024,
  attachments: 10,
  attachmentBytes: 5 * 1024 * 1024,
  attachmentsTotalBytes: 10 * 1024 * 1024,
  attachmentName: 255,
  tokenName: 100,
  tokenMaxDays: 365,
  tokenDefaultDays: 30,
} as const;
