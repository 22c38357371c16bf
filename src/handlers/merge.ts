// Merging the maps each area exports (its handlers, its register-state
// providers) into one, so that adding to an area never edits a shared list.

type Intersection<M extends readonly unknown[]> = M extends readonly [infer First, ...infer Rest]
  ? First & Intersection<Rest>
  : unknown;

/** The maps of several areas as one; a key that two areas both define throws at start. */
export function mergeAreas<M extends readonly object[]>(...maps: M): Intersection<M> {
  const merged: Record<string, unknown> = {};
  for (const map of maps) {
    for (const [key, value] of Object.entries(map)) {
      if (key in merged) throw new Error(`${key} is defined by two areas`);
      merged[key] = value;
    }
  }
  return merged as Intersection<M>;
}
