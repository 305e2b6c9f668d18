/**
 * The country codes this archive takes: ISO 3166-1 alpha-2's 249, and XK (Kosovo), as ACLED and
 * UCDP GED use it. Written out, not read from the runtime's ICU, which also names codes ISO has
 * withdrawn (FX, HV, DY, YU, ZR…) or never assigned (EU, UN, QO…) and differs between Node
 * versions: what the API accepts must not change with the runtime.
 */
export const COUNTRY_CODES: readonly string[] = [
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ",
  "BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR",
  "CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR",
  "GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU",
  "ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ",
  "LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ",
  "MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF",
  "PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI",
  "SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR",
  "TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW",
]
  .join(" ")
  .split(" ");

const CODES = new Set(COUNTRY_CODES);

export const isCountryCode = (code: string): boolean => CODES.has(code);

let names: ReadonlyMap<string, string> | undefined;

/** Each country code with its English name, as the runtime names it (for reading names, not for what is valid). */
export function countryNames(): ReadonlyMap<string, string> {
  if (names) return names;
  const display = new Intl.DisplayNames(["en"], { type: "region" });
  names = new Map(COUNTRY_CODES.map((code) => [code, display.of(code) ?? code]));
  return names;
}
