// What `npm install` prints stays readable: every installed package supports the Node versions
// package.json declares (no EBADENGINE warning), every package with an install script has a
// decision in allowScripts (none runs: nothing here needs one), and every override is
// explained in docs/operations.md.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: string };
  scripts?: Record<string, string>;
  gypfile?: boolean;
  allowScripts?: Record<string, boolean>;
  overrides?: Record<string, unknown>;
}

const root = process.cwd();
const project = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as Manifest;

/** Every package under node_modules (nested ones too), with its manifest. */
function installed(): { dir: string; manifest: Manifest }[] {
  const found: { dir: string; manifest: Manifest }[] = [];
  const visit = (modules: string) => {
    let entries: string[];
    try {
      entries = readdirSync(modules);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith(".")) continue;
      if (entry.startsWith("@")) {
        visit(path.join(modules, entry));
        continue;
      }
      const dir = path.join(modules, entry);
      try {
        const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
        found.push({ dir, manifest });
      } catch {
        continue;
      }
      visit(path.join(dir, "node_modules"));
    }
  };
  visit(path.join(root, "node_modules"));
  return found;
}

const packages = installed();

describe("npm install's output", () => {
  it("has no engine warning: every package supports the lowest and newest Node we declare", () => {
    const supported = project.engines!.node!;
    // The lowest version `engines` allows, and the LTS CI runs on.
    const versions = [semver.minVersion(supported)!.version, "24.9.0"];
    expect(versions[0]).toBe("22.14.0");
    expect(semver.satisfies("24.9.0", supported)).toBe(true);
    const refused = packages.flatMap(({ manifest }) => {
      const range = manifest.engines?.node;
      if (!range || !semver.validRange(range)) return [];
      const bad = versions.filter((version) => !semver.satisfies(version, range));
      return bad.length ? [`${manifest.name}@${manifest.version} (node ${range})`] : [];
    });
    expect(refused).toEqual([]);
  });

  it("has a decision in allowScripts for every package with an install script", () => {
    const decided = project.allowScripts ?? {};
    const withScripts = packages
      .filter(
        ({ dir, manifest }) =>
          ["preinstall", "install", "postinstall"].some((hook) => manifest.scripts?.[hook]) ||
          // npm runs `node-gyp rebuild` for a package with a binding.gyp and no install script.
          existsSync(path.join(dir, "binding.gyp")),
      )
      .map(({ manifest }) => manifest.name!);
    const undecided = [...new Set(withScripts)].filter((name) => !(name in decided));
    expect(undecided).toEqual([]);
  });

  it("explains every override in docs/operations.md", () => {
    const doc = readFileSync(path.join(root, "docs/operations.md"), "utf8");
    for (const name of Object.keys(project.overrides ?? {})) {
      expect(doc, `docs/operations.md explains the override of ${name}`).toContain(`\`${name}\``);
    }
  });
});
