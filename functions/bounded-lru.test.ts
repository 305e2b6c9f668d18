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

describe("BoundedLru weighed", () => {
  it("given a capacity in characters, when a long entry is set, then as many old ones go as it needs", () => {
    const lru = new BoundedLru<string, number>(10, (k) => k.length);
    lru.set("aaa", 1);
    lru.set("bbb", 2);
    lru.set("ccc", 3);
    expect(lru.size).toBe(3);
    lru.set("dddddd", 4);
    expect(lru.get("aaa")).toBeUndefined();
    expect(lru.get("bbb")).toBeUndefined();
    expect(lru.get("ccc")).toBe(3);
    expect(lru.get("dddddd")).toBe(4);
  });

  it("given an entry heavier than the capacity, when it is set, then it alone is kept", () => {
    const lru = new BoundedLru<string, number>(4, (k) => k.length);
    lru.set("ab", 1);
    lru.set("abcdefgh", 2);
    expect(lru.size).toBe(1);
    expect(lru.get("abcdefgh")).toBe(2);
    lru.delete("abcdefgh");
    lru.set("xy", 3);
    lru.set("zw", 4);
    expect(lru.size).toBe(2);
  });
});
