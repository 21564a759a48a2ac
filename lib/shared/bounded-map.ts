/**
 * How a process-wide map is kept bounded by its number of entries (remembered seals, checksums,
 * rate counts): `key` is set, and when that would hold more than `max` entries, the key added
 * longest ago goes first (a Map iterates in insertion order). Setting a key already held
 * replaces its value in place, keeping its place in that order, and evicts nothing. Whatever a
 * client sends, the map never holds more than `max`.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (!map.has(key) && map.size >= max) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}
