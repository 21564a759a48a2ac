import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testUsdcAbi } from "@/dev/contracts";
import {
  buildDir,
  CONTRACT_NAMES,
  compileContracts,
  escrowAbisFile,
  serializeArtifact,
  serializeEscrowAbis,
} from "@/scripts/compile-contracts";

describe("contracts/build", () => {
  const compiled = compileContracts();

  it.each(CONTRACT_NAMES)(
    "%s.json matches a fresh compile (run npm run contracts:compile)",
    (name) => {
      const committed = readFileSync(path.join(buildDir, `${name}.json`), "utf8");
      expect(committed).toBe(serializeArtifact(compiled[name]));
    },
  );

  it("escrow-abis.ts matches a fresh compile (run npm run contracts:compile)", () => {
    expect(readFileSync(escrowAbisFile, "utf8")).toBe(serializeEscrowAbis(compiled));
  });

  it("the typed ABI in dev/contracts.ts equals the compiled one", () => {
    expect(testUsdcAbi).toEqual(compiled.TestUSDC.abi);
  });

  it("Multicall3 has no immutables or constructor (its runtime code is installed as is)", () => {
    expect(
      compiled.Multicall3.abi.some((item) => (item as { type: string }).type === "constructor"),
    ).toBe(false);
    expect(
      compiled.Multicall3.bytecode.endsWith(compiled.Multicall3.deployedBytecode.slice(2)),
    ).toBe(true);
  });
});
