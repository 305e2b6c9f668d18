import type { FC } from "hono/jsx";

/**
 * Where an incident happened, each part the client sent (name, region, country) in a <bdi> of
 * its own: a right-to-left mark at the end of a name stays in the name, and cannot turn the
 * region and country after it around.
 */
export const Place: FC<{
  location: { name?: string; region?: string; country?: string } | null | undefined;
  unknown: string;
}> = ({ location, unknown }) => {
  const parts = [location?.name, location?.region, location?.country].filter((p): p is string => Boolean(p));
  if (parts.length === 0) return <>{unknown}</>;
  return (
    <>
      {parts.map((part, i) => (
        <>
          {i > 0 ? ", " : ""}
          <bdi>{part}</bdi>
        </>
      ))}
    </>
  );
};
