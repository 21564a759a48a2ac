// npm run contracts:compile: compile our contracts with solc-js into contracts/build/*.json,
// and the escrow's ABIs, typed, into contracts/build/escrow-abis.ts.
//
// The output is deterministic (pinned compiler, fixed settings, no metadata hash appended to
// the bytecode), so the artifacts are committed and contracts/compile.test.ts checks that they
// still match the sources. Imports of OpenZeppelin (`@openzeppelin/contracts/...`) and solady
// (`solady/...`) are read from node_modules (both pinned exactly in package.json).
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import solc from "solc";

export const SOLC_VERSION = "0.8.37";

/** Each contract and its source file under contracts/. */
export const CONTRACT_SOURCES = {
  TestUSDC: "TestUSDC.sol",
  Multicall3: "Multicall3.sol",
  AuthCaptureEscrow: "escrow/AuthCaptureEscrow.sol",
  TokenStore: "escrow/TokenStore.sol",
  ERC3009PaymentCollector: "escrow/ERC3009PaymentCollector.sol",
  OperatorRefundCollector: "escrow/OperatorRefundCollector.sol",
} as const;
export type ContractName = keyof typeof CONTRACT_SOURCES;
export const CONTRACT_NAMES = Object.keys(CONTRACT_SOURCES) as ContractName[];

/** The escrow set, whose typed ABIs go to contracts/build/escrow-abis.ts. */
export const ESCROW_CONTRACTS = [
  "AuthCaptureEscrow",
  "TokenStore",
  "ERC3009PaymentCollector",
  "OperatorRefundCollector",
] as const satisfies readonly ContractName[];

/** Where an immutable's value sits in the runtime code (byte offsets, 32 bytes each). */
export type ImmutableReferences = Record<string, { start: number; length: number }[]>;

export interface ContractArtifact {
  abi: unknown[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
  /** By name, when the contract has immutables: lets runtime code be installed pre-filled. */
  immutableReferences?: ImmutableReferences;
}

const root = path.resolve(__dirname, "..");
export const contractsDir = path.join(root, "contracts");
export const buildDir = path.join(contractsDir, "build");
export const escrowAbisFile = path.join(buildDir, "escrow-abis.ts");

export const compilerSettings = {
  // The local chain (Hardhat's node) runs Cancun: PUSH0, MCOPY, transient storage (the
  // escrow's reentrancy guard). Base runs it too.
  evmVersion: "cancun",
  optimizer: { enabled: true, runs: 200 },
  // No CBOR metadata (and so no source hash) at the end of the bytecode: comments and
  // whitespace do not change the artifacts, and the output does not depend on file paths.
  metadata: { appendCBOR: false, bytecodeHash: "none" },
  outputSelection: {
    "*": {
      "*": [
        "abi",
        "evm.bytecode.object",
        "evm.deployedBytecode.object",
        "evm.deployedBytecode.immutableReferences",
      ],
      "": ["ast"],
    },
  },
} as const;

/** Package imports, read from node_modules. */
const PACKAGE_ROOTS: Record<string, string> = {
  "@openzeppelin/contracts/": path.join(root, "node_modules", "@openzeppelin", "contracts"),
  "solady/": path.join(root, "node_modules", "solady", "src"),
};

function findImport(importPath: string): { contents: string } | { error: string } {
  for (const [prefix, dir] of Object.entries(PACKAGE_ROOTS)) {
    if (!importPath.startsWith(prefix)) continue;
    const file = path.join(dir, importPath.slice(prefix.length));
    if (existsSync(file)) return { contents: readFileSync(file, "utf8") };
    return { error: `${importPath}: not found at ${file} (npm install?)` };
  }
  const local = path.join(contractsDir, importPath);
  if (existsSync(local)) return { contents: readFileSync(local, "utf8") };
  return { error: `${importPath}: not found` };
}

interface AstNode {
  id?: number;
  nodeType?: string;
  name?: string;
  mutability?: string;
  [key: string]: unknown;
}

/** AST id → name of every immutable state variable. */
function immutableNames(asts: unknown[]): Map<string, string> {
  const names = new Map<string, string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== "object") return;
    const n = node as AstNode;
    if (n.nodeType === "VariableDeclaration" && n.mutability === "immutable" && n.name) {
      names.set(String(n.id), n.name);
    }
    Object.values(n).forEach(walk);
  };
  asts.forEach(walk);
  return names;
}

interface SolcOutput {
  errors?: {
    severity: "error" | "warning" | "info";
    formattedMessage: string;
    sourceLocation?: { file: string };
  }[];
  sources?: Record<string, { ast: unknown }>;
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        evm: {
          bytecode: { object: string };
          deployedBytecode: {
            object: string;
            immutableReferences?: Record<string, { start: number; length: number }[]>;
          };
        };
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
      CONTRACT_SOURCES[name],
      { content: readFileSync(path.join(contractsDir, CONTRACT_SOURCES[name]), "utf8") },
    ]),
  );
  const input = { language: "Solidity", sources, settings: compilerSettings };
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), { import: findImport }),
  ) as SolcOutput;

  // solady's own deprecation and transient-storage warnings are not ours to act on.
  const fromPackage = (e: { sourceLocation?: { file: string } }) =>
    Object.keys(PACKAGE_ROOTS).some((prefix) => e.sourceLocation?.file.startsWith(prefix));
  const problems = (output.errors ?? []).filter(
    (e) => e.severity === "error" || (e.severity === "warning" && !fromPackage(e)),
  );
  const errors = problems.filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  }
  if (problems.length > 0) {
    // Warnings are not fatal, but a clean compile is expected: make them visible.
    console.warn(problems.map((e) => e.formattedMessage).join("\n"));
  }

  const names = immutableNames(Object.values(output.sources ?? {}).map((source) => source.ast));
  const result = {} as Record<ContractName, ContractArtifact>;
  for (const name of CONTRACT_NAMES) {
    const compiled = output.contracts?.[CONTRACT_SOURCES[name]]?.[name];
    if (!compiled) throw new Error(`solc produced no output for ${name}`);
    const artifact: ContractArtifact = {
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
      deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
    };
    const references = Object.entries(compiled.evm.deployedBytecode.immutableReferences ?? {});
    if (references.length > 0) {
      artifact.immutableReferences = Object.fromEntries(
        references
          .map(([id, places]) => {
            const immutable = names.get(id);
            if (!immutable) throw new Error(`${name}: no immutable with AST id ${id}`);
            return [immutable, places] as const;
          })
          .sort(([a], [b]) => a.localeCompare(b)),
      );
    }
    result[name] = artifact;
  }
  return result;
}

const ESCROW_ABI_NAMES: Record<(typeof ESCROW_CONTRACTS)[number], string> = {
  AuthCaptureEscrow: "authCaptureEscrowAbi",
  TokenStore: "tokenStoreAbi",
  ERC3009PaymentCollector: "erc3009PaymentCollectorAbi",
  OperatorRefundCollector: "operatorRefundCollectorAbi",
};

/** The exact text of contracts/build/escrow-abis.ts: the escrow ABIs `as const`, for viem. */
export function serializeEscrowAbis(artifacts: Record<ContractName, ContractArtifact>): string {
  const header =
    "// Generated by `npm run contracts:compile` from contracts/escrow: do not edit.\n" +
    "// The ABIs of our Commerce Payments escrow stand-in, typed for viem.\n";
  const body = ESCROW_CONTRACTS.map(
    (name) =>
      `\nexport const ${ESCROW_ABI_NAMES[name]} = ${JSON.stringify(artifacts[name].abi, null, 2)} as const;\n`,
  ).join("");
  return header + body;
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
  writeFileSync(escrowAbisFile, serializeEscrowAbis(artifacts));
  console.log(`${path.relative(root, escrowAbisFile)}: the escrow's typed ABIs`);
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
