// The documentation holds together: every relative link in README.md, CONTRIBUTING.md and
// docs/**/*.md points at a file or folder that exists, and every `#anchor` into a markdown file
// at one of its headings (GitHub's slugs); the README stays short enough to be read (issue 24).
// Links to other sites are not fetched: tests reach no network.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = process.cwd();
const README_MAX_LINES = 200;

/** README.md, CONTRIBUTING.md and every markdown file under docs/, relative to the root. */
function documents(): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(relative);
      else if (entry.name.endsWith(".md")) found.push(relative);
    }
  };
  visit("docs");
  return ["README.md", "CONTRIBUTING.md", ...found.sort()];
}

/** The text outside fenced code blocks, line by line (a fence's lines become empty). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split("\n").map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return "";
    }
    if (marker) {
      fence = marker;
      return "";
    }
    return line;
  });
}

/** Every inline link's (and image's) target, outside code. */
function linkTargets(markdown: string): string[] {
  const prose = proseLines(markdown)
    .join("\n")
    .replace(/(`+)[\s\S]*?\1/g, "");
  const link = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
  return [...prose.matchAll(link)].map((match) => match[1]!);
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link: its text
    .replace(/<[^>]+>/g, "") // inline HTML
    .replace(/[`*]/g, "") // code spans and emphasis
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The anchors a markdown file's headings get (a repeated one: -1, -2, ... as GitHub does). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The links of `file` (text given, or read from disk) that lead nowhere, with why. */
function brokenLinks(file: string, markdown = fs.readFileSync(path.join(ROOT, file), "utf8")) {
  const broken: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue; // another site
    const hash = target.indexOf("#");
    const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved = pathPart ? path.join(path.dirname(file), pathPart) : file;
    const full = path.join(ROOT, resolved);
    if (!fs.existsSync(full)) {
      broken.push(`${target}: no ${resolved}`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith(".md") && fs.statSync(full).isFile()) {
      const text = resolved === file ? markdown : fs.readFileSync(full, "utf8");
      if (!anchorsOf(text).has(anchor))
        broken.push(`${target}: no heading #${anchor} in ${resolved}`);
    }
  }
  return broken;
}

describe("the documentation", () => {
  it.each(documents())("%s: every relative link and anchor resolves", (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it(`README.md is at most ${README_MAX_LINES} lines`, () => {
    const lines = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it("covers the files it should", () => {
    const files = documents();
    expect(files).toEqual(expect.arrayContaining(["README.md", "CONTRIBUTING.md", "docs/api.md"]));
    for (const file of files) expect(fs.existsSync(path.join(ROOT, file)), file).toBe(true);
  });
});

describe("the link checker", () => {
  it("slugs headings as GitHub does", () => {
    expect(slug("Payments: x402 v2, exactly once")).toBe("payments-x402-v2-exactly-once");
    expect(slug("Node.js and the install")).toBe("nodejs-and-the-install");
    expect(slug("The feed: `GET /api/v1/events`")).toBe("the-feed-get-apiv1events");
    expect(slug("Sign-in (SIWE, EIP-4361)")).toBe("sign-in-siwe-eip-4361");
    expect(slug("Why `my_work` → **now**")).toBe("why-my_work--now");
    expect([...anchorsOf("# A\n## A\n```\n# not a heading\n```\n## B ##\n")]).toEqual([
      "a",
      "a-1",
      "b",
    ]);
  });

  it("reports a missing file, a missing heading and a wrong anchor, and skips code and URLs", () => {
    const doc = [
      "# Here",
      "[ok](docs/api.md#error-codes) [self](#here) [site](https://example.com/nowhere)",
      "[gone](docs/nowhere.md) [bad anchor](docs/api.md#no-such-heading) [bad self](#nowhere)",
      "`[in code](docs/also-nowhere.md)`",
      "```md",
      "[in a fence](docs/fenced-nowhere.md)",
      "```",
    ].join("\n");
    expect(brokenLinks("README.md", doc)).toEqual([
      "docs/nowhere.md: no docs/nowhere.md",
      "docs/api.md#no-such-heading: no heading #no-such-heading in docs/api.md",
      "#nowhere: no heading #nowhere in README.md",
    ]);
  });
});
