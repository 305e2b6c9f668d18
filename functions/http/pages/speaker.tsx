import type { FC } from "hono/jsx";
import type { Attribution } from "../../../events/schemas.js";
import { attributionParts, sourcePath } from "./format.js";
import { useOpenedValues } from "./opened-values.js";

/**
 * Who said it, each part the client sent (name, role, side, pseudonym) in a <bdi> of its own:
 * a right-to-left mark in a name stays in the name, and cannot turn the role after it. A
 * private person is named as the page's reader may see them (opened-values.ts). `nameOnly`
 * leaves out the role and side. The name (or pseudonym) links to its source page, unless `link`
 * is false: an editor's judgement names no source (the finding index has no page for them).
 */
export const Speaker: FC<{ who: Attribution | undefined; nameOnly?: boolean; link?: boolean }> = ({
  who,
  nameOnly,
  link = true,
}) => {
  const opened = useOpenedValues();
  if (!who) return <>—</>;
  // Name only: an official's name, a private person's pseudonym and (opened) name.
  const shown = nameOnly ? (who.kind === "private" ? { ...who, role: undefined } : { name: who.name }) : who;
  return (
    <>
      {attributionParts(
        shown,
        (text, part) =>
          // A name and a pseudonym lead to their source page; a sealed value never goes into a link,
          // nor a name of dots alone (a browser reads /source/.. as the way up).
          link && (part === "name" || part === "pseudonym") && !/^\.{1,2}$/.test(text) ? (
            <a href={sourcePath(text)} class="source-link">
              <bdi>{text}</bdi>
            </a>
          ) : (
            <bdi>{text}</bdi>
          ),
        opened,
      )}
    </>
  );
};
