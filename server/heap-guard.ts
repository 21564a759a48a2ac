// Load shedding before the heap runs out: a process near its V8 heap limit answers new
// requests 503 + Retry-After instead of taking more work and dying of "JavaScript heap out of
// memory" (which takes every request in flight with it). Sampled on a timer, never per
// request; with a margin, so that it does not flap at the line.
import v8 from "node:v8";

type HeapStats = Pick<v8.HeapInfo, "used_heap_size" | "heap_size_limit">;

export interface HeapGuard {
  /** True while the heap is over the line (and until it is back under it by the margin). */
  readonly overloaded: boolean;
  /** Takes a sample now (the timer does it every `intervalMs`). */
  sample(): void;
  stop(): void;
}

/** Percentage points under the line the heap must fall to before requests are taken again. */
const RESUME_MARGIN = 5;

export function startHeapGuard(
  percent: number,
  {
    intervalMs = 250,
    stats = (): HeapStats => v8.getHeapStatistics(),
    log = (line: string) => console.warn(line),
  } = {},
): HeapGuard {
  let overloaded = false;
  const sample = () => {
    const { used_heap_size: used, heap_size_limit: limit } = stats();
    const share = (used / limit) * 100;
    const was = overloaded;
    overloaded = overloaded ? share >= percent - RESUME_MARGIN : share >= percent;
    if (overloaded !== was) {
      const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
      log(
        overloaded
          ? `Heap at ${share.toFixed(0)}% of its limit (${mib(used)} of ${mib(limit)}): ` +
              `answering 503 until it is under ${percent - RESUME_MARGIN}%`
          : `Heap back to ${share.toFixed(0)}% of its limit: taking requests again`,
      );
    }
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  sample();
  return {
    get overloaded() {
      return overloaded;
    },
    sample,
    stop: () => clearInterval(timer),
  };
}
