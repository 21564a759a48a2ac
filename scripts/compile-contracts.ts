// npm run contracts:compile: compile contracts/*.sol with solc-js into contracts/build/*.json.
//
// The output is deterministic (pinned compiler, fixed settings, no metadata hash appended to
// the bytecode), so the artifacts are committed and contracts/compile.test.ts checks that they
// still match the sources.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import solc from "solc";

export const SOLC_VERSION = "0.8.37";
export const CONTRACT_NAMES = ["TestUSDC", "Multicall3"] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

export interface ContractArtifact {
  abi: unknown[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
}

const root = path.resolve(__dirname, "..");
export const contractsDir = path.join(root, "contracts");
export const buildDir = path.join(contractsDir, "build");

export const compilerSettings = {
  // ganache 7 runs the Shanghai fork but the notes pin "paris" (no PUSH0) for safety.
  evmVersion: "paris",
  optimizer: { enabled: true, runs: 200 },
  // No CBOR metadata (and so no source hash) at the end of the bytecode: comments and
  // whitespace do not change the artifacts, and the output does not depend on file paths.
  metadata: { appendCBOR: false, bytecodeHash: "none" },
  outputSelection: {
    "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
  },
} as const;

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
      }
    >
  >;
}

/** Compiles every contract in CONTRACT_NAMES; throws on any compiler error. */
export function compileContracts(): Record<ContractName, ContractArtifact> {
  const version: string = solc.version();
  if (!version.startsWith(`${SOLC_VERSION}+`)) {
    throw new Error(`expected solc ${SOLC_VERSION}, found ${version}`);
  }
  const sources = Object.fromEntries(
    CONTRACT_NAMES.map((name) => [
      `${name}.sol`,
      { content: readFileSync(path.join(contractsDir, `${name}.sol`), "utf8") },
    ]),
  );
  const input = { language: "Solidity", sources, settings: compilerSettings };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;

  const problems = (output.errors ?? []).filter((e) => e.severity !== "info");
  const errors = problems.filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  }
  if (problems.length > 0) {
    // Warnings are not fatal, but a clean compile is expected: make them visible.
    console.warn(problems.map((e) => e.formattedMessage).join("\n"));
  }

  const result = {} as Record<ContractName, ContractArtifact>;
  for (const name of CONTRACT_NAMES) {
    const compiled = output.contracts?.[`${name}.sol`]?.[name];
    if (!compiled) throw new Error(`solc produced no output for ${name}`);
    result[name] = {
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
      deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
    };
  }
  return result;
}

/** The exact text written to contracts/build/<name>.json. */
export function serializeArtifact(artifact: ContractArtifact): string {
  return `${JSON.stringify(artifact, null, 2)}\n`;
}

function main() {
  const started = Date.now();
  const artifacts = compileContracts();
  mkdirSync(buildDir, { recursive: true });
  for (const name of CONTRACT_NAMES) {
    const file = path.join(buildDir, `${name}.json`);
    writeFileSync(file, serializeArtifact(artifacts[name]));
    const size = (artifacts[name].deployedBytecode.length - 2) / 2;
    console.log(`${path.relative(root, file)}: ${size} bytes of runtime code`);
  }
  console.log(`Compiled with solc ${solc.version()} in ${Date.now() - started} ms.`);
}

if (process.argv[1] && /compile-contracts\.[cm]?[jt]s$/.test(process.argv[1])) {
  try {
    main();
  } catch (error: unknown) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
