/**
 * The country codes this archive writes: ISO 3166-1 alpha-2, as ICU names them in English,
 * and XK (Kosovo), as ACLED and UCDP GED use it. ICU also names codes ISO no longer assigns or
 * never did (withdrawn: FX, HV, DY, YU, ZR…; reserved or CLDR's own: EU, UN, AC, QO…): those are
 * never a country here, so "France" is FR and "Burkina Faso" BF, never FX or HV.
 */
const NOT_ASSIGNED = new Set(
  "AC AN BU CP CQ CS DD DG DY EA EU EZ FX HV IC NH QO RH SU TA TP UK UN VD XA XB YD YU ZR ZZ".split(" "),
);

let names: ReadonlyMap<string, string> | undefined;

/** Each code this archive takes as a country, with its English name. */
export function countryNames(): ReadonlyMap<string, string> {
  if (names) return names;
  const display = new Intl.DisplayNames(["en"], { type: "region" });
  const found = new Map<string, string>();
  for (let a = 65; a <= 90; a += 1) {
    for (let b = 65; b <= 90; b += 1) {
      const code = String.fromCharCode(a, b);
      const name = display.of(code);
      if (name && name !== code && !NOT_ASSIGNED.has(code)) found.set(code, name);
    }
  }
  names = found;
  return found;
}

export const isCountryCode = (code: string): boolean => countryNames().has(code);
