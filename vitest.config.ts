import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Three tiers. `unit`: pure code, no store, no server (`npm run test:unit`, the fast loop).
 * `integration`: an in-process dynalite and HTTP server. `e2e`: child processes, Chromium,
 * cfn-lint and CDK bundling. `npm test` runs all three.
 */
const UNIT = [
  "events/**/*.test.ts",
  "functions/**/*.test.ts",
  "scripts/**/*.test.ts",
  "test/transparency/**/*.test.ts",
  "test/docs/**/*.test.ts",
  "test/long/bounded-fold.test.ts",
  "test/log/signer.test.ts",
];
const E2E = [
  "test/dashboard/browser.test.ts",
  "test/desk/**/*.test.ts",
  "test/infra/**/*.test.ts",
  "test/local/**/*.test.ts",
  "test/api/crash.test.ts",
  "test/api/generated-client.test.ts",
  "test/**/*.browser.test.ts",
  "test/**/*.e2e.test.ts",
];

export default defineConfig({
  test: {
    // The default `forks` pool: CDK's local bundling fails under threads.
    pool: "forks",
    // Most files spend their time waiting on a child process, a browser or the store, so two
    // workers fill a two-core machine (vitest's default there is one); more cores, one fewer.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Node 20 is what these machines run; the SDK's notice about its 2027 releases is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    // Test files in a worker share its loaded modules: each file re-importing the archive's
    // modules and the SDKs cost more than many of its tests. No test file changes what another
    // imports (no module mocks; those that set environment variables restore them with
    // test/support/saved-env.ts).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: UNIT } },
      {
        extends: true,
        test: { name: "integration", include: ["test/**/*.test.ts"], exclude: [...UNIT, ...E2E] },
      },
      { extends: true, test: { name: "e2e", include: E2E } },
    ],
  },
});
