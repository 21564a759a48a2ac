// Placeholder until the local chain lands (issue 4): nothing to start yet.
export async function startDevChain(): Promise<{ stop(): Promise<void> } | undefined> {
  return undefined;
}
