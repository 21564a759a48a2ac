/**
 * A memo of what was learnt lately (a receipt handed out, a gas estimate, an address's code):
 * an entry counts for `maxAgeMs` after it was set, and the memo holds at most `max` of them.
 * Setting a key moves it last, so the map's order is the order of the entries' ages; each set
 * then drops entries from the front while they have expired or the memo is past its bound.
 * Reading an expired entry answers undefined. Whatever clients send, the memo never holds more
 * than `max` entries; the time each is trusted is bounded by `maxAgeMs`.
 */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, { value: V; at: number }>();

  constructor(private readonly bounds: { maxAgeMs: number; max: number }) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value set for `key` less than `maxAgeMs` ago, if any. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    return entry && this.fresh(entry.at, Date.now()) ? entry.value : undefined;
  }

  set(key: K, value: V): void {
    const now = Date.now();
    this.entries.delete(key);
    this.entries.set(key, { value, at: now });
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.bounds.max && this.fresh(entry.at, now)) break;
      this.entries.delete(oldest);
    }
  }

  /** Set less than maxAgeMs before `now`; set "after" it (the clock stepped back): expired. */
  private fresh(at: number, now: number): boolean {
    return now >= at && now - at < this.bounds.maxAgeMs;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
