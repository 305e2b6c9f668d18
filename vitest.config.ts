import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The default `forks` pool: CDK's local bundling fails under threads.
    pool: "forks",
    // Node 20 is what these machines run; the SDK's notice about its 2027 releases is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: ["events/**/*.test.ts", "functions/**/*.test.ts", "test/**/*.test.ts"],
  },
});
