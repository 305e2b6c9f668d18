import { DEFAULT_LOG_ORIGIN, kmsVerifierKey } from "../log/signer.js";

/**
 * The transparency log's public key, read from KMS where the stack names the key (LOG_KEY_ID):
 * the functions that serve it or put it in a proof bundle may read it, never sign with it.
 */
export function logVerifierKeyFromEnv(env: NodeJS.ProcessEnv): { logVerifierKey?: () => Promise<string> } {
  if (!env.LOG_KEY_ID) return {};
  return {
    logVerifierKey: kmsVerifierKey({
      origin: env.LEDGER_LOG_ORIGIN ?? DEFAULT_LOG_ORIGIN,
      keyId: env.LOG_KEY_ID,
    }),
  };
}
