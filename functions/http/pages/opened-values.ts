import { createContext, useContext } from "hono/jsx";

/** Sealed values a page may show its reader, by the commitment (`$sealed`) standing for each. */
export type OpenedValues = ReadonlyMap<string, unknown>;

const NONE: OpenedValues = new Map();

/**
 * What the page's reader may see of the sealed values it names: a restricted-reader's page
 * provides the private speakers' names and roles (functions/people/private-speakers.ts);
 * every other page, none. A context, so that each place naming a speaker finds them.
 */
export const OpenedValuesContext = createContext<OpenedValues>(NONE);

export const useOpenedValues = (): OpenedValues => useContext(OpenedValuesContext);
