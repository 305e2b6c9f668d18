import { jsonShapeProblem } from "../../events/json-shape.js";
import { MalformedRequestError } from "../errors.js";

/**
 * The parser's reason without the excerpt of the body V8 quotes in some (`Unexpected token 'Z',
 * "Zoya Petrenko…" is not valid JSON`): a body may hold a name that was to be sealed, and no
 * error repeats one. The token and any position stay.
 */
function parserReason(error: Error): string {
  return error.message.replace(/, (?:\.\.\.)?".* is not valid JSON$/s, "");
}

/** A request body as JSON: 400 naming why if it does not parse, repeats a member name or nests too deep. */
export function parseBodyJson(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new MalformedRequestError(`the body is not valid JSON: ${parserReason(error as Error)}`, [
      { path: "(body)", message: "is not valid JSON" },
    ]);
  }
  const message = jsonShapeProblem(text);
  if (message !== null) {
    throw new MalformedRequestError(`the body ${message}; nothing was stored`, [{ path: "(body)", message }]);
  }
  return body;
}
