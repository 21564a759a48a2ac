import { x402ResourceServer } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { getFacilitator } from "../facilitator/current";
import { getSettlementNetwork } from "../chain/network";

/**
 * One initialised x402 v2 resource server per process (it asks the facilitator which
 * schemes and networks it supports once). Requirements are built per request from the
 * database, so this object holds no job data.
 */
const cache = globalThis as typeof globalThis & { __x402Server?: Promise<x402ResourceServer> };

export function getResourceServer(): Promise<x402ResourceServer> {
  cache.__x402Server ??= (async () => {
    const server = new x402ResourceServer(getFacilitator()).register(
      getSettlementNetwork().network,
      new ExactEvmScheme(),
    );
    await server.initialize();
    return server;
  })().catch((error) => {
    cache.__x402Server = undefined;
    throw error;
  });
  return cache.__x402Server;
}
