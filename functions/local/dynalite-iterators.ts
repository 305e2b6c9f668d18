import { createRequire } from "node:module";

/**
 * dynalite (the local stand-in for DynamoDB) reads every Query and Scan through a level
 * iterator and, when the read stops or ends, closes it by calling `iterator.return()` if there
 * is one. abstract-level's iterators have `close()` and no `return()`, so none is ever closed:
 * each stays attached to the database, holding its snapshot (memory-level keeps the whole
 * tree of that moment alive; classic-level pins LevelDB's memtables and table files), and the
 * server's memory grows with every read of a store that is being written. Giving the iterators
 * a `return()` that closes them lets dynalite's own clean-up work.
 *
 * Local only: `npm start` and the tests import it beside dynalite; nothing in AWS does.
 * The iterator classes are taken from the copies of abstract-level that dynalite's stores load.
 */
interface IteratorClass {
  prototype: { return?: () => Promise<IteratorResult<never>>; close(): Promise<void> };
}

function iteratorClasses(): IteratorClass[] {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve("dynalite"));
  const levels = [
    createRequire(createRequire(fromDynalite.resolve("level")).resolve("classic-level")),
    createRequire(fromDynalite.resolve("memory-level")),
  ];
  const classes = new Set<IteratorClass>();
  for (const level of levels) {
    const abstract = level("abstract-level") as Record<string, IteratorClass>;
    for (const name of ["AbstractIterator", "AbstractKeyIterator", "AbstractValueIterator"]) {
      const found = abstract[name];
      if (found) classes.add(found);
    }
  }
  return [...classes];
}

/** Idempotent; an iterator class that already has `return()` is left as it is. */
export function closeLevelIteratorsOnReturn(): void {
  for (const cls of iteratorClasses()) {
    if (Object.hasOwn(cls.prototype, "return")) continue;
    Object.defineProperty(cls.prototype, "return", {
      configurable: true,
      writable: true,
      value: async function (this: { close(): Promise<void> }) {
        await this.close();
        return { done: true, value: undefined };
      },
    });
  }
}

/** The iterator classes patched, for tests that count the iterators left open. */
export const levelIteratorClasses = iteratorClasses;

// Imported for this effect beside dynalite (functions/local/server.ts).
closeLevelIteratorsOnReturn();
