import type { FC } from "hono/jsx";
import type { Attribution } from "../../../events/schemas.js";
import { attributionParts } from "./format.js";
import { useOpenedValues } from "./opened-values.js";

/**
 * Who said it, each part the client sent (name, role, side, pseudonym) in a <bdi> of its own:
 * a right-to-left mark in a name stays in the name, and cannot turn the role after it. A
 * private person is named as the page's reader may see them (opened-values.ts). `nameOnly`
 * leaves out an official's role and side.
 */
export const Speaker: FC<{ who: Attribution | undefined; nameOnly?: boolean }> = ({ who, nameOnly }) => {
  const opened = useOpenedValues();
  if (!who) return <>—</>;
  const shown = nameOnly && who.kind !== "private" ? { name: who.name } : who;
  return (
    <>
      {attributionParts(
        shown,
        (text) => (
          <bdi>{text}</bdi>
        ),
        opened,
      )}
    </>
  );
};
