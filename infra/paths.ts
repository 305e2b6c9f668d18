import { fileURLToPath } from "node:url";

/**
 * The repository root, found from this file rather than from the working directory, so
 * `cdk synth`, the tests and an editor all resolve the Lambda entry files the same way.
 */
export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

export function projectPath(relative: string): string {
  return fileURLToPath(new URL(`../${relative}`, import.meta.url));
}
