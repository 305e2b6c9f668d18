import { describe, expect, it } from "vitest";
import { BoundedLru } from "./bounded-lru.js";

describe("BoundedLru", () => {
  it("given a full cache, when one more is set, then the least recently used is dropped", () => {
    const lru = new BoundedLru<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).toBe(1);
    lru.set("c", 3);
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("a")).toBe(1);
    expect(lru.get("c")).toBe(3);
    expect(lru.size).toBe(2);
  });

  it("given an entry, when it is deleted or set again, then size follows", () => {
    const lru = new BoundedLru<string, number>(3);
    lru.set("a", 1);
    lru.set("a", 2);
    expect(lru.size).toBe(1);
    expect(lru.get("a")).toBe(2);
    lru.delete("a");
    expect(lru.size).toBe(0);
    expect(lru.get("a")).toBeUndefined();
  });
});
