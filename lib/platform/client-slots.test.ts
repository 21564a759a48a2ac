import { describe, expect, it } from "vitest";
import { ClientSlotPool } from "./client-slots";
import type { DomainError } from "./errors";

const pool = (slots: number, perClient: number, queue: number) =>
  new ClientSlotPool({
    slots,
    perClient,
    queue,
    what: "uploads",
    clientCode: "too_many_uploads",
    retryAfterSeconds: 5,
  });

async function refusal(promise: Promise<unknown>) {
  const error = (await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )) as DomainError | undefined;
  if (!error) throw new Error("expected a refusal");
  return { status: error.status, code: error.code, retryAfter: error.headers["Retry-After"] };
}

describe("ClientSlotPool", () => {
  it("gives one client at most perClient slots (429), and others the rest", async () => {
    const slots = pool(4, 2, 0);
    await slots.acquire(["ip:a"]);
    await slots.acquire(["ip:a"]);
    expect(await refusal(slots.acquire(["ip:a"]))).toEqual({
      status: 429,
      code: "too_many_uploads",
      retryAfter: "5",
    });
    await slots.acquire(["ip:b"]);
    await slots.acquire(["ip:c"]);
    expect(slots.available).toBe(0);
    expect(await refusal(slots.acquire(["ip:d"]))).toMatchObject({
      status: 503,
      code: "server_busy",
    });
  });

  it("counts a client by any of its keys: a wallet across addresses", async () => {
    const slots = pool(10, 1, 0);
    await slots.acquire(["ip:a", "wallet:w"]);
    expect((await refusal(slots.acquire(["ip:b", "wallet:w"]))).status).toBe(429);
    await slots.acquire(["ip:b", "wallet:v"]);
  });

  it("queues beyond the free slots and hands a released slot to the first in line", async () => {
    const slots = pool(1, 2, 1);
    const first = await slots.acquire(["ip:a"]);
    let granted = false;
    const second = slots.acquire(["ip:b"]).then((release) => {
      granted = true;
      return release;
    });
    expect((await refusal(slots.acquire(["ip:c"]))).status).toBe(503);
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toBe(false);
    first();
    first();
    (await second)();
    expect(granted).toBe(true);
    expect(slots.available).toBe(1);
    // The released client may take its slots again.
    (await slots.acquire(["ip:b"]))();
  });
});
