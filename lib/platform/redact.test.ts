// What the server's logs may say about an error: URLs cut to their origin, token secrets blanked.
import { describe, expect, it } from "vitest";
import { errorForLog, errorSummary, redactSecrets } from "./redact";

const SECRET = `amk_${"Ab3_-".repeat(8)}xyz`;

describe("redaction", () => {
  it("blanks access-token secrets wherever they appear", () => {
    expect(redactSecrets(`Bearer ${SECRET}, ?t=${SECRET}&x=1`)).toBe(
      "Bearer amk_[redacted], ?t=amk_[redacted]&x=1",
    );
  });

  it("keeps secrets out of one-line summaries and full error logs, causes included", () => {
    const error = new Error(`bad token ${SECRET} at https://rpc.example/key/abc?k=1`, {
      cause: new Error(`inner ${SECRET}`),
    });
    expect(errorSummary(error)).toBe("bad token amk_[redacted] at https://rpc.example/…");
    const logged = errorForLog(error);
    expect(logged).toContain("inner amk_[redacted]");
    expect(logged).not.toContain(SECRET.slice(4));
  });
});
