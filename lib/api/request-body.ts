import "server-only";
import type { Address } from "viem";
import { addressSubject, requestClientAddress } from "@/lib/platform/client-address";
import { slotPool } from "@/lib/platform/client-slots";
import { getConfig } from "@/lib/platform/config";
import { DomainError } from "@/lib/platform/errors";
import { JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import { formatBytes } from "@/lib/shared/format";

/**
 * Reads at most `limit` bytes: a larger declared length is refused before reading, a larger
 * stream is cut off as soon as it passes the limit. A body the client broke off (or the app
 * server cut off after its request timeout) is a 400, not a crash.
 *
 * A body longer than the JSON limit (a delivery's files) reads its remainder only while it
 * holds a slot of the process's upload pool: the slot is taken when the bytes that arrive pass
 * the JSON limit (a declared Content-Length takes nothing), the pool holds UPLOAD_SLOTS at once
 * and UPLOAD_SLOTS_PER_CLIENT per client (its address and its wallet: 429 beyond), others wait
 * their turn with their uploads held back by TCP, and a sender whose last few seconds arrived
 * slower than UPLOAD_MIN_BYTES_PER_SECOND loses its slot (408), so that a trickle cannot hold
 * one until the request timeout.
 */
export async function readBody(req: Request, limit: number, wallet?: Address): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let slot: { release(): void; floor: RateFloor } | undefined;
  try {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch {
        step = { done: true, value: undefined };
        if (!slot?.floor.tripped) {
          throw new DomainError("invalid", "the request body was cut off before its end");
        }
      }
      if (slot?.floor.tripped) throw tooSlow(slot.floor.minBytesPerSecond);
      if (step.done) break;
      total += step.value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(limit);
      }
      chunks.push(step.value);
      if (slot) slot.floor.add(step.value.byteLength);
      else if (total > JSON_BODY_LIMIT) slot = await takeUploadSlot(req, wallet, reader);
    }
  } finally {
    slot?.floor.stop();
    slot?.release();
  }
  return Buffer.concat(chunks);
}

async function takeUploadSlot(
  req: Request,
  wallet: Address | undefined,
  reader: ReadableStreamDefaultReader<Uint8Array>,
) {
  const keys = [`ip:${addressSubject(requestClientAddress(req))}`];
  if (wallet) keys.push(`wallet:${wallet}`);
  const release = await uploadSlots().acquire(keys);
  const floor = new RateFloor(getConfig().UPLOAD_MIN_BYTES_PER_SECOND, () => {
    void reader.cancel().catch(() => undefined);
  });
  return { release, floor };
}

function uploadSlots() {
  return slotPool("uploads", () => {
    const config = getConfig();
    return {
      slots: config.UPLOAD_SLOTS,
      perClient: config.UPLOAD_SLOTS_PER_CLIENT,
      queue: UPLOAD_QUEUE,
      what: "large uploads",
      clientCode: "too_many_uploads",
      retryAfterSeconds: 5,
    };
  });
}

/** Uploads that may wait for a slot at once (beyond: 503). */
const UPLOAD_QUEUE = 32;
/** The rate floor's window: a sender is judged on what arrived in the last this-many seconds. */
const RATE_WINDOW_SECONDS = 5;

/**
 * Watches an upload's pace once per second: when a full window has passed and fewer than
 * `minBytesPerSecond` arrived per second over the last window, it trips (calling `onTrip`,
 * which stops the read).
 */
class RateFloor {
  tripped = false;
  private readonly perSecond: number[] = [0];
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly minBytesPerSecond: number,
    private readonly onTrip: () => void,
  ) {
    this.timer = setInterval(() => this.tick(), 1_000);
    this.timer.unref();
  }

  add(bytes: number) {
    this.perSecond[this.perSecond.length - 1]! += bytes;
  }

  stop() {
    clearInterval(this.timer);
  }

  private tick() {
    const window = this.perSecond.slice(-RATE_WINDOW_SECONDS);
    const arrived = window.reduce((sum, bytes) => sum + bytes, 0);
    if (
      window.length >= RATE_WINDOW_SECONDS &&
      arrived < this.minBytesPerSecond * RATE_WINDOW_SECONDS
    ) {
      this.tripped = true;
      this.stop();
      this.onTrip();
      return;
    }
    this.perSecond.push(0);
    if (this.perSecond.length > RATE_WINDOW_SECONDS) this.perSecond.shift();
  }
}

function tooSlow(minBytesPerSecond: number) {
  return new DomainError(
    "timeout",
    `the upload arrived slower than ${formatBytes(minBytesPerSecond)} per second; retry on a ` +
      "faster connection",
    {},
    "upload_too_slow",
  );
}

/** The JSON body within `limit` bytes; an empty body reads as `undefined`. */
export async function readJson(req: Request, limit: number, wallet?: Address): Promise<unknown> {
  return parseJson(await readBody(req, limit, wallet));
}

export function parseJson(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError("invalid", "the request body is not valid JSON");
  }
}

export function tooLarge(limit: number) {
  return new DomainError("too_large", `the request body is larger than ${formatBytes(limit)}`);
}
