/**
 * How a process-wide map is kept bounded by its number of entries (remembered seals, checksums,
 * rate counts): `key` is set as the newest entry (a key already held moves last, with its new
 * value, evicting nothing), and when that would hold more than `max` entries, the entry set
 * longest ago goes first (a Map iterates in insertion order). Whatever a client sends, the map
 * never holds more than `max`.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (!map.delete(key) && map.size >= max) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}
