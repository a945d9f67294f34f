// Reads ICU MessageFormat plural messages with FormatJS's parser, the one most JavaScript apps
// use, and prints each message's forms as JSON: {"one": "...", "other": "..."}.
//
//   echo '["{count, plural, one {x} other {y}}"]' | node icu.mjs
//
// A message must be exactly one plural argument whose forms are literal text (locstore keeps
// a form as text; `#` and nested arguments would be something else), or the script fails.
import { parse, TYPE } from "@formatjs/icu-messageformat-parser";

const input = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
}));

const forms = input.map((message) => {
  const ast = parse(message, { ignoreTag: true });
  if (ast.length !== 1 || ast[0].type !== TYPE.plural) {
    throw new Error(`not one plural argument: ${JSON.stringify(message)}`);
  }
  return Object.fromEntries(
    Object.entries(ast[0].options).map(([category, option]) => {
      const literal = option.value.every((element) => element.type === TYPE.literal);
      if (!literal) {
        throw new Error(`form ${category} is not literal text: ${JSON.stringify(message)}`);
      }
      return [category, option.value.map((element) => element.value).join("")];
    }),
  );
});
process.stdout.write(JSON.stringify(forms));
