import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    environment: "node",
    include: [
      "lib/**/*.test.ts",
      "contracts/**/*.test.ts",
      "scripts/**/*.test.ts",
      "tests/**/*.test.ts",
    ],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    // Integration files each start servers and databases; two cores.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
