import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The default `forks` pool: CDK's local bundling fails under threads.
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: ["events/**/*.test.ts", "functions/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
  },
});
