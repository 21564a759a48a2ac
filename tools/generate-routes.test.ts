// The route files and the large-body path list are what the operation contracts generate
// (npm run routes:generate): a contract added, changed or removed without regenerating, or a
// route file written by hand beside them, fails here.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { contractRouteFiles, LARGE_BODY_FILE, largeBodyFile, routeFiles } from "./generate-routes";

describe("the contracts' generated files", () => {
  it("are the route files under app/api, and no other route file is there", async () => {
    const expected = await routeFiles();
    expect(contractRouteFiles()).toEqual([...expected.keys()].sort());
    for (const [file, content] of expected) {
      expect(fs.readFileSync(file, "utf8"), file).toBe(content);
    }
  });

  it("name the large-body paths the app server applies before Next", async () => {
    expect(fs.readFileSync(LARGE_BODY_FILE, "utf8")).toBe(await largeBodyFile());
  });
});
