// The job board's first-load JavaScript: the wallet stack (wagmi, RainbowKit, react-query,
// the x402 client) must not be in it; it loads later in its own chunks.
import { gzipSync } from "node:zlib";
import { expect, test } from "./fixtures";

const WALLET_MARKERS = ["WagmiProviderNotFoundError", "data-rk", "rainbowkit", "x402Version"];

test("the job board's first-load JS excludes the wallet stack", async ({ request }) => {
  const html = await (await request.get("/")).text();
  // Polyfills load only in browsers without modules (`noModule`); modern browsers skip them.
  const scripts = [...html.matchAll(/<script([^>]*)src="([^"]+\.js[^"]*)"([^>]*)>/g)]
    .filter((match) => !/nomodule/i.test(`${match[1]} ${match[3]}`))
    .map((match) => match[2]!);
  expect(scripts.length).toBeGreaterThan(0);
  let total = 0;
  let gzipped = 0;
  const offenders: string[] = [];
  for (const src of new Set(scripts)) {
    const body = await (await request.get(src)).text();
    total += body.length;
    gzipped += gzipSync(body).length;
    for (const marker of WALLET_MARKERS)
      if (body.includes(marker)) offenders.push(`${src} contains ${marker}`);
  }
  console.log(
    `job board first-load JS: ${scripts.length} scripts, ${(total / 1024).toFixed(0)} KiB, ${(gzipped / 1024).toFixed(0)} KiB gzipped`,
  );
  expect(offenders).toEqual([]);
  // Next.js + React alone are about 140 KiB gzipped; the board adds only small leaves.
  expect(gzipped).toBeLessThan(200 * 1024);
});
