// Answers translations with i18next itself, from the files of an export.
// stdin: {"resources": {lng: {ns: <the file's JSON>}}, "queries": [{"lng", "ns", "key", "count"?}]}
// stdout: the answers of t(key, {lng, ns, count}), in query order (JSON array).
import i18next from "i18next";

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const { resources, queries } = JSON.parse(input);
const namespaces = [...new Set(Object.values(resources).flatMap((byNs) => Object.keys(byNs)))];
const instance = i18next.createInstance();
await instance.init({
  resources,
  lng: Object.keys(resources)[0],
  fallbackLng: false,
  ns: namespaces,
  defaultNS: namespaces[0],
  // Texts are compared as written: no {{value}} is filled in.
  interpolation: { escapeValue: false, prefix: "\u0000{", suffix: "}\u0000" },
  returnNull: false,
  showSupportNotice: false,
});
const answers = queries.map(({ lng, ns, key, count }) =>
  instance.t(key, count === undefined ? { lng, ns } : { lng, ns, count }),
);
process.stdout.write(JSON.stringify(answers));
