// An injected test wallet for Playwright: the private key stays in Node (viem account); the
// page gets a thin EIP-1193 provider announced through EIP-6963, whose requests are answered
// through an exposed binding. Reads it cannot answer itself go to the chain's RPC.
import type { BrowserContext } from "@playwright/test";
import { type Hex, type PrivateKeyAccount, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export const WALLET_NAME = "E2E Wallet";
// RainbowKit lists an EIP-6963 wallet only with a data:image icon.
const ICON =
  "data:image/svg+xml;base64," +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4f46e5"/><path d="M9 11h14v10H9z" fill="#fff"/></svg>',
  ).toString("base64");

type RpcRequest = { method: string; params?: unknown[] };
type RpcAnswer = { result: unknown } | { error: { code: number; message: string } };

export interface TestWallet {
  account: PrivateKeyAccount;
  address: Hex;
  /** Every request the page sent, in order (method names). */
  calls: string[];
  /** Makes the next signature request fail as if the user clicked "Reject". */
  rejectNextSignature(): void;
}

export async function installWallet(
  context: BrowserContext,
  privateKey: Hex,
  options: { chainId: number; rpcUrl: string },
): Promise<TestWallet> {
  const account = privateKeyToAccount(privateKey);
  const calls: string[] = [];
  let rejectNext = false;
  // Like a real wallet: the site sees no account until it asked for one.
  let authorized = false;
  const chainIdHex = toHex(options.chainId);

  async function answer({ method, params = [] }: RpcRequest): Promise<RpcAnswer> {
    calls.push(method);
    switch (method) {
      case "eth_requestAccounts":
        authorized = true;
        return { result: [account.address] };
      case "eth_accounts":
        return { result: authorized ? [account.address] : [] };
      case "eth_chainId":
        return { result: chainIdHex };
      case "net_version":
        return { result: String(options.chainId) };
      case "wallet_switchEthereumChain": {
        const wanted = (params[0] as { chainId?: string } | undefined)?.chainId;
        return wanted && BigInt(wanted) === BigInt(options.chainId)
          ? { result: null }
          : { error: { code: 4902, message: `Unrecognized chain ID ${wanted}` } };
      }
      case "wallet_addEthereumChain":
        return { result: null };
      case "wallet_revokePermissions":
        authorized = false;
        return { result: null };
      case "wallet_requestPermissions":
        authorized = true;
        return { result: [{ parentCapability: "eth_accounts" }] };
      case "wallet_getPermissions":
        return { result: authorized ? [{ parentCapability: "eth_accounts" }] : [] };
      case "personal_sign":
      case "eth_signTypedData_v4": {
        if (rejectNext) {
          rejectNext = false;
          return { error: { code: 4001, message: "User rejected the request." } };
        }
        if (method === "personal_sign") {
          return { result: await account.signMessage({ message: { raw: params[0] as Hex } }) };
        }
        const typed = JSON.parse(params[1] as string);
        const { EIP712Domain: _domainType, ...types } = typed.types;
        return {
          result: await account.signTypedData({
            domain: typed.domain,
            types,
            primaryType: typed.primaryType,
            message: typed.message,
          }),
        };
      }
      default: {
        const response = await fetch(options.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        });
        const body = (await response.json()) as {
          result?: unknown;
          error?: { code: number; message: string };
        };
        return body.error ? { error: body.error } : { result: body.result };
      }
    }
  }

  await context.exposeBinding("__e2eWalletRequest", (_source, request: RpcRequest) =>
    answer(request),
  );
  await context.addInitScript(
    ({ name, icon, uuid }) => {
      const listeners: Record<string, ((...args: unknown[]) => void)[]> = {};
      const bridge = (
        window as unknown as { __e2eWalletRequest: (request: unknown) => Promise<any> }
      ).__e2eWalletRequest;
      const provider = {
        isE2EWallet: true,
        async request({ method, params }: { method: string; params?: unknown[] }) {
          const answer = await bridge({ method, params: params ?? [] });
          if (answer && "error" in answer) {
            const error = new Error(answer.error.message) as Error & { code: number };
            error.code = answer.error.code;
            throw error;
          }
          return answer.result;
        },
        on(event: string, listener: (...args: unknown[]) => void) {
          (listeners[event] ??= []).push(listener);
          return provider;
        },
        removeListener(event: string, listener: (...args: unknown[]) => void) {
          listeners[event] = (listeners[event] ?? []).filter((item) => item !== listener);
          return provider;
        },
      };
      const detail = Object.freeze({
        info: { uuid, name, icon, rdns: "dev.marketplace.e2e" },
        provider,
      });
      const announce = () =>
        window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail }));
      window.addEventListener("eip6963:requestProvider", announce);
      announce();
    },
    { name: WALLET_NAME, icon: ICON, uuid: "7d1f3c52-9a3e-4f4e-b8f5-e2e000000001" },
  );

  return {
    account,
    address: account.address,
    calls,
    rejectNextSignature() {
      rejectNext = true;
    },
  };
}
