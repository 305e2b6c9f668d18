import { defineConfig } from "vitest/config";

// The benchmark's own smoke test (`npm test -w incident-ledger-bench`): a quick run of every
// suite. The product's `npm test` does not run it.
export default defineConfig({
  test: {
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    include: ["bench.test.ts"],
    testTimeout: 600_000,
  },
});
