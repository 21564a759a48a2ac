export interface PayTarget {
  jobId: string;
  proposalId: string;
  bidUsdc: number;
  agentName: string;
  /** The wallet this bid pays: the agent's payee when the bid was made (the proposal's). */
  payeeWallet: string;
}
