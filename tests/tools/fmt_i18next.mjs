// Formats texts with i18next's t(), as a web app calls it: the i18next side of
// tests/api/placeholder_pairs.rs.
//
//   echo '[{"text": {"one": "{{count}} file", "other": "{{count}} files"}, "args": {}, "count": 2}]' \
//     | node fmt_i18next.mjs
//   -> ["2 files"]
//
// stdin: a JSON list of {"text", "args": {name: value}, "count"?, "locale"?}: a text is a string,
// or an object of plural forms by CLDR category (a key's `key_one`, `key_other`... entries), of
// which t() picks one by `count` in `locale` (default "en"). Interpolation is i18next's default
// (`{{name}}`, `$t(...)` nesting), without HTML escaping, as apps that render with React do.
// stdout: a JSON list, per text the answer of t() or {"error": "..."} when a `{{name}}` of the
// text has no value (i18next itself would leave it as written).
import i18next from "i18next";

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const items = JSON.parse(input);

// Every text is a key of one resource bundle per language: `t0`, `t1`, ... (`t1_one`, ...).
const resources = {};
items.forEach(({ text, locale = "en" }, index) => {
  const bundle = ((resources[locale] ??= { translation: {} }).translation);
  if (typeof text === "string") bundle[`t${index}`] = text;
  else for (const [category, form] of Object.entries(text)) bundle[`t${index}_${category}`] = form;
});

let missing = [];
const instance = i18next.createInstance();
await instance.init({
  resources,
  lng: "en",
  fallbackLng: false,
  interpolation: { escapeValue: false },
  missingInterpolationHandler: (_text, match) => {
    missing.push(match[0]);
    return match[0];
  },
  returnNull: false,
  showSupportNotice: false,
});

const answers = items.map(({ args = {}, count, locale = "en" }, index) => {
  missing = [];
  const options = count === undefined ? { ...args, lng: locale } : { ...args, lng: locale, count };
  const answer = instance.t(`t${index}`, options);
  return missing.length ? { error: `no value for ${missing.join(", ")}` } : answer;
});
process.stdout.write(JSON.stringify(answers));
