// The built app server starts with a bounded V8 heap (tools/run.ts, SERVER_HEAP_MIB).
import { afterEach, describe, expect, it, vi } from "vitest";

const load = async (heap: string | undefined) => {
  vi.resetModules();
  vi.stubEnv("SERVER_HEAP_MIB", heap);
  return import("./run");
};

describe("the app server's heap bound", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("is 512 MiB unless SERVER_HEAP_MIB says otherwise; the dev server has none", async () => {
    expect((await load(undefined)).appServerArgs()[0]).toBe("--max-old-space-size=512");
    expect((await load("2048")).appServerArgs()[0]).toBe("--max-old-space-size=2048");
    expect((await load("1024")).devServerArgs.join(" ")).not.toContain("max-old-space-size");
  });

  it("leaves an operator's own bound in NODE_OPTIONS alone", async () => {
    vi.stubEnv("NODE_OPTIONS", "--max-old-space-size=3072");
    expect((await load("1024")).appServerArgs().join(" ")).not.toContain("max-old-space-size");
  });

  it("refuses a value that is not a whole number of MiB in range, when the server starts", async () => {
    for (const bad of ["64", "1.5", "lots", "100000"]) {
      const run = await load(bad);
      expect(() => run.appServerArgs()).toThrow(/SERVER_HEAP_MIB must be a whole number of MiB/);
      // npm run dev imports the same module; its server has no bound to refuse.
      expect(run.devServerArgs).toEqual(["--import", "tsx", "server/main.ts"]);
    }
  });
});
