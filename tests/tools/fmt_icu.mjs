// Formats ICU MessageFormat texts with FormatJS's intl-messageformat, what web apps (react-intl)
// and Flutter's ARB files mean by a message: the ICU side of tests/api/placeholder_pairs.rs.
//
//   echo '[{"text": "{n, plural, one {# file} other {# files}} in {dir}", "args": {"n": 2, "dir": "x"}}]' \
//     | node fmt_icu.mjs
//   -> ["2 files in x"]
//
// stdin: a JSON list of {"text", "args": {name: value}, "locale"?} (locale defaults to "en"; a
// plural's category comes from it). Tags (`<b>...</b>`) are formatted as the message holds them:
// each tag's content is wrapped back in the tag, so the output shows where the markup went.
// stdout: a JSON list, per text the formatted string or {"error": "..."} (a text FormatJS cannot
// parse, or an argument the message needs and was not given).
import { IntlMessageFormat } from "intl-messageformat";

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;

// A tag's handler: `<b>x</b>` is written back as it was around its formatted content.
const tags = (text) =>
  Object.fromEntries(
    [...text.matchAll(/<([A-Za-z0-9_:]+)[^>]*>/g)].map(([, name]) => [
      name,
      (chunks) => `<${name}>${chunks.join("")}</${name}>`,
    ]),
  );

const answers = JSON.parse(input).map(({ text, args = {}, locale = "en" }) => {
  try {
    const message = new IntlMessageFormat(text, locale);
    const parts = message.format({ ...tags(text), ...args });
    return Array.isArray(parts) ? parts.join("") : String(parts);
  } catch (error) {
    return { error: String(error.message ?? error) };
  }
});
process.stdout.write(JSON.stringify(answers));
