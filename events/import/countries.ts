import { countryNames, isCountryCode } from "../country-codes.js";
import { ownValue } from "../own-keys.js";

/**
 * Country names as ACLED and UCDP GED spell them → ISO 3166-1 alpha-2. Most names are the ones
 * `Intl.DisplayNames` gives in English; the datasets' other spellings are listed below.
 */
const ALIASES: Record<string, string> = {
  "russia (soviet union)": "RU",
  russia: "RU",
  "dr congo (zaire)": "CD",
  "democratic republic of congo": "CD",
  "democratic republic of the congo": "CD",
  "republic of congo": "CG",
  congo: "CG",
  "ivory coast": "CI",
  "cote d'ivoire": "CI",
  "myanmar (burma)": "MM",
  myanmar: "MM",
  "yemen (north yemen)": "YE",
  "serbia (yugoslavia)": "RS",
  "cambodia (kampuchea)": "KH",
  "zimbabwe (rhodesia)": "ZW",
  "madagascar (malagasy)": "MG",
  "bosnia-herzegovina": "BA",
  "bosnia and herzegovina": "BA",
  "macedonia, fyr": "MK",
  "north macedonia": "MK",
  palestine: "PS",
  israel: "IL",
  syria: "SY",
  iran: "IR",
  laos: "LA",
  "south korea": "KR",
  "north korea": "KP",
  "united states": "US",
  // Gleditsch and Ward's state names, which UCDP's datasets keep.
  "united states of america": "US",
  rumania: "RO",
  surinam: "SR",
  "united kingdom": "GB",
  turkey: "TR",
  "czech republic": "CZ",
  "east timor": "TL",
  "timor-leste": "TL",
  swaziland: "SZ",
  eswatini: "SZ",
  "cape verde": "CV",
  "vietnam (north vietnam)": "VN",
  "kingdom of eswatini": "SZ",
  bahamas: "BS",
  gambia: "GM",
  micronesia: "FM",
  "vatican city": "VA",
  "caribbean netherlands": "BQ",
  "saint-martin": "MF",
  "saint-barthelemy": "BL",
  kosovo: "XK",
  "saint vincent and the grenadines": "VC",
  "bonaire, sint eustatius and saba": "BQ",
  "virgin islands, u.s.": "VI",
  "virgin islands, british": "VG",
  "kingdom of eswatini (swaziland)": "SZ",
  "hong kong": "HK",
  macau: "MO",
  macao: "MO",
  "heard island and mcdonald islands": "HM",
  "south georgia and the south sandwich islands": "GS",
  "united states minor outlying islands": "UM",
  "saint helena, ascension and tristan da cunha": "SH",
};

/** Marks, case and spacing aside, "&" as "and" and "St." as "Saint": ICU's "St. Kitts & Nevis" is ACLED's "Saint Kitts and Nevis". */
function normalise(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .trim()
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/\s*&\s*/g, " and ")
    .replace(/^st\.? /, "saint ");
}

let byName: Map<string, string> | undefined;

function names(): Map<string, string> {
  if (byName) return byName;
  byName = new Map();
  for (const [code, name] of countryNames()) byName.set(normalise(name), code);
  return byName;
}

/** The alpha-2 code of a country name (or of an alpha-2 code itself); null for a name not known. */
export function countryCode(name: string): string | null {
  const trimmed = name.trim();
  if (/^[A-Z]{2}$/.test(trimmed)) return isCountryCode(trimmed) ? trimmed : null;
  const key = normalise(trimmed);
  const known = ownValue(ALIASES, key) ?? names().get(key);
  if (known) return known;
  // UCDP writes a state's earlier name after its current one: "Belarus (Byelorussia)".
  const earlier = /^(.+?) \([^()]+\)$/.exec(key);
  return earlier
    ? (ownValue(ALIASES, earlier[1] as string) ?? names().get(earlier[1] as string) ?? null)
    : null;
}
