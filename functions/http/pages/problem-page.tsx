import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Problem } from "../problem.js";
import { MessagePage } from "./layout.js";
import { renderPage } from "./render-page.js";

/**
 * A problem a page route met (an unknown query parameter, a refused form post, a failure),
 * as a page: a person is reading, so the same title, detail and fields as the API's problem
 * document, in HTML. What it says is what the API would say; nothing else is shown.
 */
export function problemPage(c: Context, problem: Problem): Promise<Response> {
  return renderPage(
    c,
    problem.status as ContentfulStatusCode,
    <MessagePage title={problem.title}>
      <p>{problem.detail}</p>
      {problem.errors && problem.errors.length > 0 ? (
        <ul>
          {problem.errors.map((error) => (
            <li>
              <code>{error.path}</code>: {error.message}
            </li>
          ))}
        </ul>
      ) : null}
    </MessagePage>,
  );
}
