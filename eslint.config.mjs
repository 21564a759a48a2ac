import { readFileSync } from "node:fs";
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const LAYERS = JSON.parse(
  readFileSync(new URL("./tools/layers.json", import.meta.url), "utf8"),
).layers;

// The house's boundaries (CONTRIBUTING.md). Type-only imports are erased at
// build time, so they may cross; values may not.
const DEV_MACHINERY = {
  group: ["@/dev", "@/dev/**", "@/tests/**", "@/e2e/**"],
  message: "Development and test machinery: only scripts, tests and app/api/dev import it.",
};
const SERVER_CODE = {
  regex: "^@/(lib/(?!shared(/|$))|server/)",
  allowTypeImports: true,
  message:
    "Browser and shared code imports only lib/shared and @agent-marketplace/client (server modules hold keys and secrets); pass data as props.",
};

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([
    ".next*/**",
    ".data/**",
    "lib/generated/**",
    "contracts/build/**",
    "test-results/**",
    "playwright-report/**",
    "next-env.d.ts",
    "packages/*/dist/**",
  ]),
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
  {
    // Production code: never the dev machinery (the payment path above all).
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "server/**/*.ts"],
    ignores: ["**/*.test.ts", "app/api/dev/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: [DEV_MACHINERY] }],
    },
  },
  {
    // Components (server sections and client leaves) get data as props from pages.
    files: ["components/**/*.{ts,tsx}", "app/error.tsx"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [DEV_MACHINERY, SERVER_CODE] },
      ],
    },
  },
  {
    // The client package: published on its own, for programs and the browser. Its own files
    // and its declared dependencies only (the packed-tarball test installs nothing else).
    files: ["packages/client/src/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^@/",
              message: "The client package is published alone: it imports none of the app.",
            },
            { group: ["node:*"], message: "The client package runs in the browser too." },
          ],
        },
      ],
    },
  },
  {
    // Isomorphic: the browser imports it. Only itself, Prisma's generated enums and packages.
    files: ["lib/shared/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            DEV_MACHINERY,
            {
              regex: "^@/(lib/(?!shared/|generated/prisma/enums$)|server/|components/)",
              message: "lib/shared is isomorphic: it imports nothing server-side.",
            },
            { group: ["node:*"], message: "lib/shared runs in the browser too." },
          ],
        },
      ],
    },
  },
  // Layers (tools/layers.json): each lib/ folder imports only the folders below it, and never
  // the UI. tools/import-graph.test.ts checks the same with relative imports resolved.
  ...Object.entries(LAYERS).map(([folder, allowed]) => ({
    files: [`lib/${folder}/**/*.{ts,tsx}`],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@/components/**", "@/app/**"], message: "lib/ never imports the UI." },
            ...Object.keys(LAYERS)
              .filter((other) => other !== folder && !allowed.includes(other))
              .map((other) => ({
                group: [`@/lib/${other}`, `@/lib/${other}/**`],
                message: `lib/${folder} may not import lib/${other} (tools/layers.json).`,
              })),
          ],
        },
      ],
    },
  })),
]);
