/**
 * The environment as it is now, and a way back to it: keys added since are removed and the
 * others set again, in Node's own `process.env` (test files share a worker's process, so the
 * object itself must stay Node's, which keeps every value a string).
 */
export function saveEnv(): () => void {
  const saved = { ...process.env };
  return () => {
    for (const key of Object.keys(process.env)) if (!Object.hasOwn(saved, key)) delete process.env[key];
    Object.assign(process.env, saved);
  };
}
