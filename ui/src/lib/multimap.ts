/** Adds `value` to the list of `key` in place (copying the list each time would be quadratic in a node's degree). */
export function push<K, V>(m: Map<K, V[]>, key: K, value: V): void {
  const list = m.get(key);
  if (list) list.push(value);
  else m.set(key, [value]);
}
