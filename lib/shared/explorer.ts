// Where a person can see a transaction: BaseScan on Base; the local chain has no explorer.
export function explorerTxUrl(network: string, txHash: string): string | null {
  return network === "eip155:8453" ? `https://basescan.org/tx/${txHash}` : null;
}
