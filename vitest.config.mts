import path from "node:path";
import { defineConfig } from "vitest/config";

// Two projects. unit: the domain, payments and tooling in-process (no build, no spawned
// process; a test that needs a chain starts its own), `npm run test:unit`. integration: the
// contract over real HTTP against the production build, and the scripts as processes,
// sharing one local chain.
export default defineConfig({
  resolve: {
    alias: {
      // The client package from its source, as the app imports it (tsconfig.json's paths).
      "@agent-marketplace/client/": path.resolve(import.meta.dirname, "packages/client/src") + "/",
      "@agent-marketplace/client": path.resolve(
        import.meta.dirname,
        "packages/client/src/index.ts",
      ),
      "@": path.resolve(import.meta.dirname),
      // Tests run server code outside a React server environment: the marker's no-op side.
      "server-only": path.resolve(import.meta.dirname, "node_modules/server-only/empty.js"),
    },
  },
  test: {
    environment: "node",
    testTimeout: 60_000,
    // A test passes on its first try or fails: no retries hide a flake.
    retry: 0,
    hookTimeout: 240_000,
    // Integration files each start servers and databases; two cores.
    maxWorkers: 2,
    fileParallelism: true,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          // Forked processes, not worker threads: threads were 7 s faster (54 s against 61 s),
          // but a CI run on 2026-11-23 ended with glibc's "corrupted size vs. prev_size" in the
          // vitest process itself (native code in a worker shares the process's heap), losing
          // the whole run's report; a crashing fork fails only its own file.
          pool: "forks",
          globalSetup: ["tests/setup/pglite-template.ts"],
          include: [
            "lib/**/*.test.ts",
            "dev/**/*.test.ts",
            "contracts/**/*.test.ts",
            "scripts/**/*.test.ts",
            "tools/**/*.test.ts",
            "server/**/*.test.ts",
            "packages/*/src/**/*.test.ts",
          ],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/**/*.test.ts"],
          globalSetup: [
            "tests/setup/processes.ts",
            "tests/setup/pglite-template.ts",
            "tests/setup/chain.ts",
          ],
        },
      },
    ],
  },
});
