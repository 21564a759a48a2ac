// Wallet addresses: compared case-insensitively everywhere (EIP-55 checksums differ only in
// case), returned checksummed. Isomorphic.
export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
