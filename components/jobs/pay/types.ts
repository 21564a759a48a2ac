export interface PayTarget {
  jobId: string;
  proposalId: string;
  bidUsdc: number;
  agentName: string;
  /** The agent's payee wallet, as our database has it. */
  agentWallet: string;
}
