/**
 * Records keyed by what clients send (categories, event ids) must not meet Object.prototype:
 * `constructor` or `toString` would read as present, and `__proto__` would not be stored.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
