import { describe, expect, it } from "vitest";
import { MAX_WORKERS, workerCount } from "./workers";

const POSTGRES = "postgresql://postgres@127.0.0.1:5432/app";

describe("workerCount (WEB_CONCURRENCY)", () => {
  it("runs one worker per core on PostgreSQL unless told, at most MAX_WORKERS", () => {
    expect(workerCount({ DATABASE_URL: POSTGRES }, 2)).toEqual({
      workers: 2,
      why: "2 workers, one per core (WEB_CONCURRENCY unset)",
    });
    expect(workerCount({ DATABASE_URL: POSTGRES }, 1).workers).toBe(1);
    expect(workerCount({ DATABASE_URL: POSTGRES }, 256).workers).toBe(MAX_WORKERS);
  });

  it("takes WEB_CONCURRENCY as given on PostgreSQL, more or fewer than the cores", () => {
    expect(workerCount({ DATABASE_URL: POSTGRES, WEB_CONCURRENCY: 1 }, 8)).toEqual({
      workers: 1,
      why: "1 worker (WEB_CONCURRENCY)",
    });
    expect(workerCount({ DATABASE_URL: POSTGRES, WEB_CONCURRENCY: 6 }, 2).workers).toBe(6);
  });

  it("runs one worker on the embedded database, and says why", () => {
    const unset = workerCount({}, 8);
    expect(unset.workers).toBe(1);
    expect(unset.why).toMatch(/^1 worker: the embedded database \(PGlite\) belongs to one process/);
    const asked = workerCount({ WEB_CONCURRENCY: 4 }, 8);
    expect(asked.workers).toBe(1);
    expect(asked.why).toMatch(/^1 worker \(WEB_CONCURRENCY=4 ignored\): the embedded database/);
  });
});
