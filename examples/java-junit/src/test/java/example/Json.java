package example;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Just enough JSON for the tests (the JDK has no parser): objects, arrays, strings, numbers, literals. */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** Parses one JSON value: Map, List, String, Double/Long, Boolean or null. */
    static Object parse(String text) {
        Json parser = new Json(text);
        Object value = parser.value();
        parser.skipSpace();
        if (parser.at != text.length()) throw parser.error("trailing text");
        return value;
    }

    /** Writes a string as a JSON string literal. */
    static String quote(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        return out.append('"').toString();
    }

    private Object value() {
        skipSpace();
        if (at >= text.length()) throw error("unexpected end");
        char c = text.charAt(at);
        if (c == '{') return object();
        if (c == '[') return array();
        if (c == '"') return string();
        if (text.startsWith("true", at)) { at += 4; return Boolean.TRUE; }
        if (text.startsWith("false", at)) { at += 5; return Boolean.FALSE; }
        if (text.startsWith("null", at)) { at += 4; return null; }
        return number();
    }

    private Map<String, Object> object() {
        Map<String, Object> members = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (text.charAt(at) == '}') { at++; return members; }
        while (true) {
            skipSpace();
            String key = string();
            skipSpace();
            expect(':');
            members.put(key, value());
            skipSpace();
            if (text.charAt(at) == ',') { at++; continue; }
            expect('}');
            return members;
        }
    }

    private List<Object> array() {
        List<Object> items = new ArrayList<>();
        at++;
        skipSpace();
        if (text.charAt(at) == ']') { at++; return items; }
        while (true) {
            items.add(value());
            skipSpace();
            if (text.charAt(at) == ',') { at++; continue; }
            expect(']');
            return items;
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c != '\\') { out.append(c); continue; }
            char escaped = text.charAt(at++);
            switch (escaped) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> { out.append((char) Integer.parseInt(text.substring(at, at + 4), 16)); at += 4; }
                default -> out.append(escaped);
            }
        }
    }

    private Object number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
        String digits = text.substring(start, at);
        if (digits.isEmpty()) throw error("unexpected character");
        if (digits.contains(".") || digits.contains("e") || digits.contains("E")) return Double.parseDouble(digits);
        return Long.parseLong(digits);
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) throw error("expected '" + c + "'");
        at++;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at " + at + " in " + text);
    }
}
