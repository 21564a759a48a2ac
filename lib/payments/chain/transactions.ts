// Whether the node still has a transaction we sent: the one question the sender (a nonce to
// reuse), the reconciler (a settlement to send again), the escrow's actions and the
// facilitator's remembered settlements each ask before acting on a hash.
import { type Hex, type PublicClient, type Transaction, TransactionNotFoundError } from "viem";

/**
 * The transaction as the node has it (waiting, or mined), or undefined when the node does not
 * know it (never received, dropped by a reset or from its pool). Any other failure (the node
 * not answering) is thrown: "unknown" must not read as "gone".
 */
export async function transactionInNode(
  client: PublicClient,
  hash: Hex,
): Promise<Transaction | undefined> {
  try {
    return await client.getTransaction({ hash });
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return undefined;
    throw error;
  }
}
