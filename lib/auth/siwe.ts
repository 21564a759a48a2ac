import { randomBytes } from "node:crypto";
import { ethers } from "ethers";
import { SiweMessage } from "siwe";
import { type Address, getAddress } from "viem";
import { getConfig } from "@/lib/platform/config";
import type { Db } from "@/lib/db";
import { ensureWallet } from "@/lib/db/wallets";
import { DomainError, invalid, unauthenticated } from "@/lib/platform/errors";

export const NONCE_TTL_MS = 10 * 60 * 1000;

/** A fresh single-use nonce (128 bits, hex so it is SIWE-alphanumeric), stored for 10 minutes. */
export async function issueNonce(db: Db): Promise<string> {
  const nonce = randomBytes(16).toString("hex");
  const now = Date.now();
  await db.siweNonce.create({ data: { nonce, expiresAt: new Date(now + NONCE_TTL_MS) } });
  // Opportunistic clean-up keeps the table small without a scheduler.
  if (Math.random() < 0.05) {
    await db.siweNonce.deleteMany({ where: { expiresAt: { lt: new Date(now - NONCE_TTL_MS) } } });
  }
  return nonce;
}

export interface VerifySiweInput {
  message: string;
  signature: string;
  /** Hosts the message's `domain` may name: the configured site's hosts (never a header). */
  allowedDomains: string[];
}

/**
 * Checks an EIP-4361 message and its EIP-191 signature (EIP-1271 for contract wallets when an
 * RPC is configured), then burns the nonce. Returns the checksummed signer.
 */
export async function verifySiwe(db: Db, input: VerifySiweInput): Promise<Address> {
  let message: SiweMessage;
  try {
    message = new SiweMessage(input.message);
  } catch (error) {
    throw invalid(
      "invalid_siwe_message",
      `message is not a valid EIP-4361 (SIWE) message: ${describeSiweError(error)}`,
    );
  }
  if (!input.allowedDomains.includes(message.domain)) {
    throw unauthenticated(
      `the message is for domain "${message.domain}", not this site (${input.allowedDomains.join(" or ")})`,
      "siwe_refused",
    );
  }

  const rpcUrl = getConfig().CHAIN_RPC_URL;
  const result = await message.verify(
    { signature: input.signature, domain: message.domain, time: new Date().toISOString() },
    {
      suppressExceptions: true,
      ...(rpcUrl ? { provider: new ethers.JsonRpcProvider(rpcUrl) as never } : {}),
    },
  );
  if (!result.success) {
    throw unauthenticated(
      `sign-in refused: ${result.error?.type ?? "invalid signature"}`,
      "siwe_refused",
    );
  }

  const burned = await db.siweNonce.updateMany({
    // mutant: sign-in-an-expired-nonce-is-refused
    where: { nonce: message.nonce, usedAt: null, expiresAt: { gt: new Date() } },
    // mutant end
    data: { usedAt: new Date() },
  });
  if (burned.count !== 1) {
    throw unauthenticated(
      "sign-in refused: the nonce is unknown, expired or already used; get a new one",
      "siwe_refused",
    );
  }

  const address = getAddress(message.address);
  await ensureWallet(db, address);
  return address;
}

function describeSiweError(error: unknown): string {
  if (error instanceof DomainError) return error.message;
  if (error instanceof Error) return error.message.split("\n")[0] ?? "unreadable";
  if (typeof error === "object" && error && "type" in error)
    return String((error as { type: unknown }).type);
  return "unreadable";
}
