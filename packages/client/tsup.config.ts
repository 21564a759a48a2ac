import { defineConfig } from "tsup";

// ESM with its declarations, one file per entry (the browser's forms import `./core` alone, so
// they never load the x402 payer); dependencies stay imports, installed beside the package.
export default defineConfig({
  entry: ["src/index.ts", "src/core.ts", "src/money.ts"],
  format: ["esm"],
  dts: true,
  target: "es2022",
  platform: "neutral",
  clean: true,
  sourcemap: true,
  tsconfig: "tsconfig.json",
});
