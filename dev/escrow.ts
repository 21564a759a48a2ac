// Our stand-in of the Commerce Payments escrow (contracts/escrow) on the local chain: runtime
// code installed with `hardhat_setCode` at the addresses of Base's v1.1.0 deployment, as
// Multicall3 is at its canonical one. No transaction is sent (the deployer's nonces, and so
// LOCAL_TOKEN_ADDRESS, stay as they were); the code is written with its immutables already
// filled in, each at the offsets solc reported (contracts/build/*.json `immutableReferences`):
//   AuthCaptureEscrow        tokenStoreImplementation = the TokenStore below
//   TokenStore (the one every operator's store clones)   authCaptureEscrow = the escrow
//   ERC3009PaymentCollector  authCaptureEscrow = the escrow, multicall3 = canonical Multicall3
//   OperatorRefundCollector  authCaptureEscrow = the escrow
// The TokenStore sits where the escrow's constructor would have created it (the escrow's
// address, nonce 1), as on Base. Development and test machinery only.
import { getContractAddress, pad, type Address, type Hex } from "viem";
import escrowArtifact from "@/contracts/build/AuthCaptureEscrow.json";
import erc3009CollectorArtifact from "@/contracts/build/ERC3009PaymentCollector.json";
import refundCollectorArtifact from "@/contracts/build/OperatorRefundCollector.json";
import tokenStoreArtifact from "@/contracts/build/TokenStore.json";
import {
  LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
  LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS,
  LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS,
  MULTICALL3_ADDRESS,
} from "@/lib/payments/chain/local-network";

export {
  LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
  LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS,
  LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS,
} from "@/lib/payments/chain/local-network";
export {
  authCaptureEscrowAbi,
  erc3009PaymentCollectorAbi,
  operatorRefundCollectorAbi,
  tokenStoreAbi,
} from "@/contracts/build/escrow-abis";

/** The TokenStore implementation every operator's store is a clone of. */
export const LOCAL_TOKEN_STORE_IMPLEMENTATION_ADDRESS: Address = getContractAddress({
  from: LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
  nonce: 1n,
});

interface RuntimeArtifact {
  deployedBytecode: string;
  immutableReferences?: Record<string, { start: number; length: number }[]>;
}

/**
 * `artifact`'s runtime code with each immutable set to an address. Throws unless `values` names
 * exactly the contract's immutables.
 */
export function linkRuntimeCode(artifact: RuntimeArtifact, values: Record<string, Address>): Hex {
  const references = artifact.immutableReferences ?? {};
  const expected = Object.keys(references).sort();
  const given = Object.keys(values).sort();
  if (expected.join() !== given.join()) {
    throw new Error(`immutables ${expected.join(", ")} expected, got ${given.join(", ")}`);
  }
  let code = artifact.deployedBytecode.slice(2);
  for (const [name, places] of Object.entries(references)) {
    const word = pad(values[name]!, { size: 32 }).slice(2).toLowerCase();
    for (const { start, length } of places) {
      if (length !== 32) throw new Error(`immutable ${name}: ${length} bytes, expected 32`);
      code = code.slice(0, start * 2) + word + code.slice((start + length) * 2);
    }
  }
  return `0x${code}`;
}

/** Each address of the local escrow set and the runtime code it must hold. */
export function localEscrowCode(): { name: string; address: Address; code: Hex }[] {
  const escrow = LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS;
  return [
    {
      name: "TokenStore",
      address: LOCAL_TOKEN_STORE_IMPLEMENTATION_ADDRESS,
      code: linkRuntimeCode(tokenStoreArtifact, { authCaptureEscrow: escrow }),
    },
    {
      name: "AuthCaptureEscrow",
      address: escrow,
      code: linkRuntimeCode(escrowArtifact, {
        tokenStoreImplementation: LOCAL_TOKEN_STORE_IMPLEMENTATION_ADDRESS,
      }),
    },
    {
      name: "ERC3009PaymentCollector",
      address: LOCAL_ERC3009_PAYMENT_COLLECTOR_ADDRESS,
      code: linkRuntimeCode(erc3009CollectorArtifact, {
        authCaptureEscrow: escrow,
        multicall3: MULTICALL3_ADDRESS,
      }),
    },
    {
      name: "OperatorRefundCollector",
      address: LOCAL_OPERATOR_REFUND_COLLECTOR_ADDRESS,
      code: linkRuntimeCode(refundCollectorArtifact, { authCaptureEscrow: escrow }),
    },
  ];
}
