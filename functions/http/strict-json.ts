import { jsonShapeProblem } from "../../events/json-shape.js";
import { MalformedRequestError } from "../errors.js";

/** A request body as JSON: 400 naming why if it does not parse, repeats a member name or nests too deep. */
export function parseBodyJson(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new MalformedRequestError(`the body is not valid JSON: ${(error as Error).message}`, [
      { path: "(body)", message: "is not valid JSON" },
    ]);
  }
  const message = jsonShapeProblem(text);
  if (message !== null) {
    throw new MalformedRequestError(`the body ${message}; nothing was stored`, [{ path: "(body)", message }]);
  }
  return body;
}
