// The operator's ABI fragment (./abi.ts) is the published Commerce Payments v1.1.0 interface:
// every function and event in it has the selector or topic of the vendored upstream ABI.
import {
  type Abi,
  type AbiEvent,
  type AbiFunction,
  toEventSelector,
  toFunctionSelector,
} from "viem";
import { describe, expect, it } from "vitest";
import upstream from "@/contracts/upstream-abi/AuthCaptureEscrow.json";
import { escrowAbi } from "./abi";

const published = upstream as Abi;
const selectorsOf = (abi: Abi) =>
  new Map(
    abi.flatMap((item) =>
      item.type === "function"
        ? [[item.name, toFunctionSelector(item as AbiFunction)] as const]
        : item.type === "event"
          ? [[item.name, toEventSelector(item as AbiEvent)] as const]
          : [],
    ),
  );

describe("the escrow operator's ABI", () => {
  it("has the published selector for every function and topic for every event it uses", () => {
    const ours = selectorsOf(escrowAbi as Abi);
    const theirs = selectorsOf(published);
    expect(ours.size).toBe(escrowAbi.length);
    for (const [name, selector] of ours) {
      expect(theirs.get(name), name).toBe(selector);
    }
  });
});
