import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's chromium (`apt-get install -y chromium`), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * The one headless Chromium every browser test drives (playwright-core over Debian's package).
 * playwright gives it a fresh temporary profile of its own and removes it on close.
 */
export async function launchChromium(): Promise<Browser> {
  // Fail, never skip: a missing browser must not pass as green.
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: the browser tests need Debian's chromium ` +
        "(apt-get install -y chromium; .ci/run does this). Do not use `npx playwright install`.",
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
