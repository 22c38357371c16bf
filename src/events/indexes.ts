// Indexes of queues and polls: sets of them under a key (a user, a realm),
// the key removed with its last member.

/** Adds `value` to the set of `key`. */
export function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

/** Removes `value` from the set of `key`, and the key once its set is empty. */
export function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
