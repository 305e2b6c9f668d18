/**
 * Records keyed by what clients send (categories, event ids, source names) and tables of
 * labels looked up by such keys must not meet Object.prototype: `constructor` or `toString`
 * would read as present, and `__proto__` would not be stored. Every such lookup goes through
 * here.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A label from a fixed table, or `fallback(key)` for a key the table does not own. */
export function ownLabel(
  table: Readonly<Record<string, string>>,
  key: string,
  fallback: (key: string) => string = (k) => k,
): string {
  return ownValue(table, key) ?? fallback(key);
}
