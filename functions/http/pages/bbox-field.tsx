import type { FC } from "hono/jsx";

/** The box a search or the map is narrowed to, as the API's `bbox` reads it. */
export const BboxField: FC<{ id: string; label: string; value: string | undefined; invalid?: object }> = ({
  id,
  label,
  value,
  invalid = {},
}) => (
  <div class="field">
    <label for={id}>{label} (minLon,minLat,maxLon,maxLat)</label>
    <input
      id={id}
      name="bbox"
      value={value ?? ""}
      placeholder="22,44,41,53"
      autocomplete="off"
      {...invalid}
    />
  </div>
);
