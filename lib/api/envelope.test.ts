// A public read's ETag (lib/api/envelope.ts): the SHA-256 of the answer's bytes, base64url, cut
// to 32 characters, so a client's cached ETag stays valid across versions; If-None-Match with
// it answers 304 without a body.
import { describe, expect, it } from "vitest";
import { ok, okJson } from "./envelope";

describe("a public read's ETag", () => {
  const data = { title: "café 😀 — ✓" };
  // SHA-256 of `{"data":{"title":"café 😀 — ✓"}}` in UTF-8, base64url, first 32 characters.
  const ETAG = '"vtsBSN-LSBQxIvDGVzAyaC4iXqH6jCG7"';

  it("is the answer's SHA-256, whether the data comes as objects or as JSON text", async () => {
    const request = new Request("http://localhost/api/v1/jobs/x");
    const fromObjects = ok(data, { revalidate: request });
    const fromText = okJson({ json: JSON.stringify(data) }, { revalidate: request });
    for (const response of [fromObjects, fromText]) {
      expect(response.headers.get("etag")).toBe(ETAG);
      expect(await response.text()).toBe(JSON.stringify({ data }));
    }
  });

  it("answers 304 without a body to If-None-Match naming it", async () => {
    const request = new Request("http://localhost/api/v1/jobs/x", {
      headers: { "if-none-match": `W/${ETAG}` },
    });
    const response = ok({ ...data }, { revalidate: request });
    expect(response.status).toBe(304);
    expect(await response.text()).toBe("");
  });
});
