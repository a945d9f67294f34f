// Formats texts with java.util.Formatter, the formatter behind Android's getString(id, args...)
// and String.format: the Android (printf) side of tests/api/placeholder_pairs.rs.
//
//   echo '[{"text": "%2$s has %1$d", "args": [3, "Ana"]}]' | java tests/tools/Fmt.java
//   -> ["Ana has 3"]
//
// stdin: a JSON list of {"text", "args": [...], "locale"?}; args are passed in order as the
// app passes them: a JSON whole number as a Long (%d), a fraction as a Double (%.2f), a string
// as a String (%s). The locale defaults to Locale.ROOT so that numbers read the same in every
// platform's output (the tests compare texts, not locale data).
// stdout: a JSON list, per text the formatted string or {"error": "..."} (an
// IllegalFormatException names what is wrong with the text).
//
// Java has no JSON reader in its standard library, so a small one is below (objects, lists,
// strings, numbers, true/false/null: all the input holds).
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

public class Fmt {
    public static void main(String[] argv) throws IOException {
        InputStream in = System.in;
        String input = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        List<?> items = (List<?>) new Reader(input).value();
        StringBuilder out = new StringBuilder("[");
        for (Object element : items) {
            Map<?, ?> item = (Map<?, ?>) element;
            if (out.length() > 1) out.append(',');
            String text = (String) item.get("text");
            List<?> args = item.containsKey("args") ? (List<?>) item.get("args") : List.of();
            Locale locale = item.get("locale") instanceof String tag ? Locale.forLanguageTag(tag) : Locale.ROOT;
            try {
                writeString(out, String.format(locale, text, args.toArray()));
            } catch (RuntimeException error) {
                out.append("{\"error\":");
                writeString(out, error.getClass().getSimpleName() + ": " + error.getMessage());
                out.append('}');
            }
        }
        out.append(']');
        System.out.write(out.toString().getBytes(StandardCharsets.UTF_8));
        System.out.flush();
    }

    static void writeString(StringBuilder out, String text) {
        out.append('"');
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('"');
    }

    /** A JSON reader: whole numbers become Long, other numbers Double. */
    static final class Reader {
        private final String s;
        private int at;

        Reader(String s) {
            this.s = s;
        }

        Object value() {
            skip();
            char c = s.charAt(at);
            switch (c) {
                case '{': {
                    Map<String, Object> map = new LinkedHashMap<>();
                    at++;
                    skip();
                    if (s.charAt(at) == '}') { at++; return map; }
                    while (true) {
                        skip();
                        String key = string();
                        skip();
                        expect(':');
                        map.put(key, value());
                        skip();
                        if (s.charAt(at++) == '}') return map;
                    }
                }
                case '[': {
                    List<Object> list = new ArrayList<>();
                    at++;
                    skip();
                    if (s.charAt(at) == ']') { at++; return list; }
                    while (true) {
                        list.add(value());
                        skip();
                        if (s.charAt(at++) == ']') return list;
                    }
                }
                case '"':
                    return string();
                case 't': at += 4; return Boolean.TRUE;
                case 'f': at += 5; return Boolean.FALSE;
                case 'n': at += 4; return null;
                default: {
                    int start = at;
                    while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) at++;
                    String number = s.substring(start, at);
                    if (number.matches("-?\\d+")) return Long.parseLong(number);
                    return Double.parseDouble(number);
                }
            }
        }

        private String string() {
            expect('"');
            StringBuilder text = new StringBuilder();
            while (true) {
                char c = s.charAt(at++);
                if (c == '"') return text.toString();
                if (c != '\\') { text.append(c); continue; }
                char e = s.charAt(at++);
                switch (e) {
                    case 'n' -> text.append('\n');
                    case 't' -> text.append('\t');
                    case 'r' -> text.append('\r');
                    case 'b' -> text.append('\b');
                    case 'f' -> text.append('\f');
                    case 'u' -> { text.append((char) Integer.parseInt(s.substring(at, at + 4), 16)); at += 4; }
                    default -> text.append(e);
                }
            }
        }

        private void expect(char c) {
            if (s.charAt(at) != c) throw new IllegalArgumentException("expected " + c + " at " + at);
            at++;
        }

        private void skip() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) at++;
        }
    }
}
