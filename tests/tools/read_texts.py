"""Reads an app's localization files with readers that are not locstore's and prints every
text they find, so that a test can check that the server holds each of them.

Usage: python read_texts.py FORMAT FILE...   (FORMAT: android-xml, apple-strings, xcstrings,
arb, json, i18next, po, xliff, xliff2, csv, csv-table)

Prints JSON: [{"file", "key", "language"?, "text"} or {"file", "key", "language"?, "forms"}],
with "construct" naming what an entry is made of where the server is known to handle it
apart (tests/fixtures/apps/STATUS lists the constructs an app's server lacks),
in the files' order. `language` is given where the file itself names languages (a String
Catalog, a CSV table, the sources of PO and XLIFF files as "@source"); otherwise the file's
path names it and the caller maps it. `forms` is an object of plural categories (CLDR names;
for PO, the msgstr indexes "0", "1", ...). A file that does not parse is an entry
{"file", "error"}.

The readers, format by format:
- Android: ElementTree, with aapt2's rules for a string's value written here (quotes keep
  white space, runs of white space outside them collapse to one space and are trimmed at the
  ends, `\\n \\t \\' \\" \\\\ \\@ \\? \\uXXXX` escapes, surrogate pairs joined). A string with
  inline elements is given as its text without the tags, with "markup": true.
- Apple: `.strings` with openstep_plist (CoreFoundation's old-style property list grammar)
  or plistlib (XML property lists), decoded by byte order mark (UTF-16 without one is told by
  its NUL bytes); `.stringsdict` with plistlib.
- String Catalogs, ARB, JSON and i18next: the json module, with i18next's plural suffix rules
  (`NAME_one` ... `NAME_other` are the forms of NAME when NAME_other is there; the
  `_ordinal_` forms too).
- PO: polib. XLIFF 1.2 and 2.0: translate-toolkit; a source or target with inline elements
  (`<x/>`, `<g>`, `<ph>`, `<pc>`) is given as its text without the tags, with "markup": true.
  CSV: the csv module.
"""

import codecs
import csv
import io
import json
import plistlib
import re
import sys
from xml.etree import ElementTree

CATEGORIES = ("zero", "one", "two", "few", "many", "other")


def read_bytes(path):
    with open(path, "rb") as handle:
        return handle.read()


def entry(file, key, text=None, forms=None, **extra):
    found = {"file": file, "key": key}
    if forms is not None:
        found["forms"] = forms
    else:
        found["text"] = text
    found.update({name: value for name, value in extra.items() if value is not None})
    return found


# ---------------------------------------------------------------- Android


def android_value(element):
    """A <string>'s or <item>'s value as aapt2 builds it (without the tags of inline markup)."""
    markup = len(element) > 0
    # A span's tags (any element but <xliff:g>, which aapt2 drops) end a run of text: white
    # space collapses within each run, and a text with spans is not trimmed.
    boundary = "\0"
    styled = False

    def flatten(node, pieces):
        nonlocal styled
        pieces.append(node.text or "")
        for child in node:
            span = child.tag != "{urn:oasis:names:tc:xliff:document:1.2}g"
            styled = styled or span
            pieces.append(boundary if span else "")
            flatten(child, pieces)
            pieces.append(boundary if span else "")
            pieces.append(child.tail or "")

    pieces = []
    flatten(element, pieces)
    raw = "".join(pieces)
    # Each character with whether it is kept whatever the white space rules say (escaped or
    # in quotes).
    out = []
    quoted = False
    space = False
    at = 0
    while at < len(raw):
        char = raw[at]
        if char == "\\" and at + 1 < len(raw):
            escaped = raw[at + 1]
            at += 2
            space = False
            if escaped == "n":
                out.append(("\n", True))
            elif escaped == "t":
                out.append(("\t", True))
            elif escaped == "u":
                digits = raw[at : at + 4]
                if re.fullmatch(r"[0-9A-Fa-f]{4}", digits):
                    out.append((chr(int(digits, 16)), True))
                    at += 4
            else:
                out.append((escaped, True))
            continue
        at += 1
        if char == boundary:
            space = False
            continue
        if char == '"':
            quoted = not quoted
            space = False
            continue
        if not quoted and char in " \t\n\r":
            if not space:
                out.append((" ", False))
                space = True
            continue
        space = False
        out.append((char, quoted))
    # aapt2 trims the white space outside quotes and escapes at both ends of a text without
    # spans.
    while not styled and out and out[0] == (" ", False):
        out.pop(0)
    while not styled and out and out[-1] == (" ", False):
        out.pop()
    text = "".join(char for char, _ in out)
    # Two \u escapes of one UTF-16 surrogate pair are one character.
    text = text.encode("utf-16", "surrogatepass").decode("utf-16")
    return text, markup


def read_android(file):
    root = ElementTree.parse(file).getroot()
    found = []
    for element in root:
        if element.get("product") not in (None, "default"):
            continue
        name = element.get("name")
        translatable = element.get("translatable") != "false"
        if element.tag == "string":
            text, markup = android_value(element)
            if text:
                found.append(
                    entry(
                        file,
                        name,
                        text,
                        markup=markup or None,
                        translatable=None if translatable else False,
                    )
                )
        elif element.tag == "plurals":
            forms = {}
            markup = False
            for item in element.iter("item"):
                text, item_markup = android_value(item)
                markup = markup or item_markup
                if text:
                    forms[item.get("quantity")] = text
            if forms:
                found.append(entry(file, name, forms=forms, markup=markup or None))
    return found


# ---------------------------------------------------------------- Apple


def decode_apple(data):
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    if len(data) >= 2 and b"\x00" in data[:200]:
        return data.decode("utf-16-le" if data[1] == 0 else "utf-16-be")
    return data.decode("utf-8")


def read_strings(file):
    data = read_bytes(file)
    text = decode_apple(data)
    if text.lstrip().startswith("<?xml") or text.lstrip().startswith("<plist"):
        table = plistlib.loads(text.encode("utf-8"))
    else:
        import openstep_plist

        table = openstep_plist.loads(text) if text.strip() else {}
    return [
        entry(file, key, value)
        for key, value in table.items()
        if isinstance(value, str) and value
    ]


def read_stringsdict(file):
    table = plistlib.loads(read_bytes(file))
    found = []
    for key, spec in table.items():
        if not isinstance(spec, dict):
            continue
        format_key = spec.get("NSStringLocalizedFormatKey", "")
        variables = re.findall(r"%#@([^@]*)@", format_key)
        if len(set(variables)) != 1 or not isinstance(spec.get(variables[0]), dict):
            found.append(
                entry(file, key, None, skipped=f"variables: {len(set(variables))}")
            )
            continue
        before, _, after = format_key.partition("%#@" + variables[0] + "@")
        forms = {
            category: before + text + after
            for category, text in spec[variables[0]].items()
            if category in CATEGORIES and isinstance(text, str) and text
        }
        if forms:
            found.append(entry(file, key, forms=forms))
    return found


# ---------------------------------------------------------------- String Catalogs


def is_unit_or_forms(localization):
    """Whether a localization is one string unit, or plural variations of string units."""

    def unit(node):
        return (
            isinstance(node, dict)
            and set(node) == {"stringUnit"}
            and isinstance(node["stringUnit"].get("value"), str)
        )

    if unit(localization):
        return True
    if set(localization) != {"variations"} or set(localization["variations"]) != {"plural"}:
        return False
    return all(unit(form) for form in localization["variations"]["plural"].values())


def read_xcstrings(file):
    catalog = json.loads(read_bytes(file))
    source = catalog.get("sourceLanguage", "en")
    found = []
    for key, string in catalog.get("strings", {}).items():
        localizations = string.get("localizations", {})
        translatable = string.get("shouldTranslate", True)
        # A key one of whose localizations has substitutions, device variations or another
        # shape than a string unit or plural forms of string units is held whole (the
        # contract): every language's localization of it is one text, the catalog's JSON.
        whole = None
        for localization in localizations.values():
            if "stringSet" in localization:
                continue
            if "substitutions" in localization:
                whole = "substitutions"
            elif "device" in localization.get("variations", {}) and whole is None:
                whole = "device-variations"
            elif not is_unit_or_forms(localization) and whole is None:
                whole = "variations"
        if whole:
            for language, localization in localizations.items():
                if "stringSet" in localization:
                    found.append(
                        entry(file, key, None, language=language, skipped="stringSet")
                    )
                else:
                    found.append(
                        entry(
                            file,
                            key,
                            None,
                            language=language,
                            whole=localization,
                            construct=whole,
                        )
                    )
            continue
        if source not in localizations and key:
            # A key without a value in the source language is its own source text.
            found.append(entry(file, key, key, language=source, implicit=True))
        for language, localization in localizations.items():
            if "stringUnit" in localization:
                value = localization["stringUnit"].get("value", "")
                if value:
                    found.append(
                        entry(
                            file,
                            key,
                            value,
                            language=language,
                            translatable=None if translatable else False,
                        )
                    )
            elif "variations" in localization:
                forms = {
                    category: form["stringUnit"]["value"]
                    for category, form in localization["variations"]["plural"].items()
                    if form["stringUnit"].get("value")
                }
                if forms:
                    found.append(entry(file, key, forms=forms, language=language))
            elif "stringSet" in localization:
                # App Shortcuts phrases: kept in the catalog, not held (the contract's "kept").
                found.append(
                    entry(file, key, None, language=language, skipped="stringSet")
                )
    return found


# ---------------------------------------------------------------- ARB, JSON, i18next


def icu_literal(text):
    """A plural case's text as ICU MessageFormat (and FormatJS) reads it, apostrophe mode
    DOUBLE_OPTIONAL: `''` is one apostrophe; an apostrophe before `{`, `}`, `#` or `|`
    quotes up to the next lone apostrophe; any other apostrophe is itself."""
    out = []
    at = 0
    quoted = False
    while at < len(text):
        char = text[at]
        following = text[at + 1] if at + 1 < len(text) else ""
        if char == "'" and following == "'":
            out.append("'")
            at += 2
            continue
        if char == "'" and quoted:
            quoted = False
        elif char == "'" and following in ("{", "}", "#", "|") and following:
            quoted = True
        else:
            out.append(char)
        at += 1
    return "".join(out)


def split_icu_plural(message):
    """The forms of a message that is one ICU plural and nothing else, else None."""
    match = re.fullmatch(r"\s*\{\s*(\w+)\s*,\s*plural\s*,(.*)\}\s*", message, re.DOTALL)
    if not match:
        return None
    body = match.group(2)
    forms = {}
    at = 0
    while at < len(body):
        selector = re.match(
            r"\s*(offset:\d+\s*)?(=\d+|zero|one|two|few|many|other)\s*\{", body[at:]
        )
        if not selector:
            if body[at:].strip():
                return None
            break
        start = at + selector.end()
        depth = 1
        position = start
        quoted = False
        while position < len(body) and depth:
            char = body[position]
            if char == "'":
                quoted = not quoted
            elif not quoted and char == "{":
                depth += 1
            elif not quoted and char == "}":
                depth -= 1
            position += 1
        if depth:
            return None
        forms[selector.group(2)] = icu_literal(body[start : position - 1])
        at = position
    # Braces balanced over the whole message: one plural only.
    return forms if "other" in forms else None


def read_arb(file):
    messages = json.loads(read_bytes(file))
    found = []
    for key, value in messages.items():
        if key.startswith("@") or not isinstance(value, str) or not value:
            continue
        forms = split_icu_plural(value)
        if forms is not None:
            found.append(entry(file, key, forms=forms, message=value))
        else:
            found.append(entry(file, key, value))
    return found


def flatten(value, prefix=""):
    if isinstance(value, dict):
        for name, inner in value.items():
            yield from flatten(inner, f"{prefix}.{name}" if prefix else name)
    else:
        yield prefix, value


def read_json(file, i18next=False):
    data = json.loads(read_bytes(file))
    found = []
    plain = {}
    nested_forms = {}

    def walk(value, prefix):
        if isinstance(value, dict):
            if (
                value
                and set(value) <= set(CATEGORIES)
                and "other" in value
                and all(isinstance(v, str) for v in value.values())
            ):
                nested_forms[prefix] = {c: t for c, t in value.items() if t}
                return
            for name, inner in value.items():
                walk(inner, f"{prefix}.{name}" if prefix else name)
        elif isinstance(value, str):
            plain[prefix] = value

    walk(data, "")
    if i18next:
        gathered = {}
        for key, text in list(plain.items()):
            match = re.fullmatch(
                r"(.*?)_(ordinal_)?(zero|one|two|few|many|other)", key, re.DOTALL
            )
            if match and f"{match.group(1)}_{match.group(2) or ''}other" in plain:
                gathered.setdefault((match.group(1), bool(match.group(2))), {})[
                    match.group(3)
                ] = text
                del plain[key]
        for (key, ordinal), forms in gathered.items():
            forms = {c: t for c, t in forms.items() if t}
            if forms:
                found.append(entry(file, key, forms=forms, ordinal=ordinal or None))
    for key, text in plain.items():
        if text:
            found.append(entry(file, key, text))
    for key, forms in nested_forms.items():
        if forms:
            found.append(entry(file, key, forms=forms))
    return found


# ---------------------------------------------------------------- PO


def read_po(file):
    import polib

    po = polib.pofile(file, wrapwidth=0)
    found = []
    for item in po:
        if item.obsolete or (item.msgid == "" and item.msgctxt is None):
            continue
        key = item.msgid if item.msgctxt is None else f"{item.msgctxt}\x04{item.msgid}"
        fuzzy = "fuzzy" in item.flags or None
        if item.msgid_plural:
            forms = {
                str(index): text
                for index, text in sorted(item.msgstr_plural.items())
                if text
            }
            if forms:
                found.append(entry(file, key, forms=forms, fuzzy=fuzzy))
            found.append(
                entry(
                    file,
                    key,
                    forms={"one": item.msgid, "other": item.msgid_plural},
                    language="@source",
                )
            )
        else:
            if item.msgstr:
                found.append(entry(file, key, item.msgstr, fuzzy=fuzzy))
            found.append(entry(file, key, item.msgid, language="@source"))
    return found


# ---------------------------------------------------------------- XLIFF


INLINE = {
    "g",
    "ph",
    "x",
    "bx",
    "ex",
    "bpt",
    "ept",
    "it",
    "pc",
    "sc",
    "ec",
    "mrk",
    "sm",
    "em",
    "cp",
}


def read_xliff(file):
    """Units as translate-toolkit finds them; each unit's key as the app's loader keys it (the
    `resname` or 2.0 `name`, else the `id`; in Symfony's files, whose `<file original>` is
    `file.ext` or a `.xlf` name, the `<source>` instead of the `id`, as Symfony's
    XliffFileLoader does), and its texts as the element's character data, white space as
    written (translate-toolkit's `unit.target` folds it where `xml:space` is not `preserve`;
    the apps' loaders do not)."""
    from translate.storage import xliff, xliff2

    data = read_bytes(file)
    version_2 = b"urn:oasis:names:tc:xliff:document:2.0" in data
    store = (xliff2.Xliff2File if version_2 else xliff.xlifffile).parsestring(data)
    found = []

    def local(element):
        return element.tag.split("}")[-1] if isinstance(element.tag, str) else ""

    def child(element, name):
        for inner in element.iter():
            if inner is not element and local(inner) == name:
                return inner
        return None

    for unit in store.units:
        element = unit.getunitelement() if version_2 else unit.xmlelement
        symfony = False
        if not version_2:
            parent = element.getparent()
            while parent is not None and local(parent) != "file":
                parent = parent.getparent()
            original = parent.get("original", "") if parent is not None else ""
            symfony = original == "file.ext" or original.endswith(".xlf")
        source = child(element, "source")
        target = child(element, "target")
        source_text = "".join(source.itertext()) if source is not None else ""
        key = element.get("name" if version_2 else "resname") or (
            source_text if symfony else element.get("id")
        )
        if not key:
            continue
        inline = any(
            local(inner) in INLINE
            for part in (source, target)
            if part is not None
            for inner in part.iter()
            if inner is not part
        )
        if version_2:
            segment = child(element, "segment")
            state = segment.get("state") if segment is not None else None
        else:
            state = target.get("state") if target is not None else None
        construct = "inline" if inline else None
        if source_text:
            found.append(
                entry(
                    file,
                    key,
                    source_text,
                    language="@source",
                    construct=construct,
                    markup=inline or None,
                )
            )
        target_text = "".join(target.itertext()) if target is not None else ""
        if target_text and state not in ("new", "needs-translation"):
            found.append(
                entry(
                    file,
                    key,
                    target_text,
                    state=state,
                    construct=construct,
                    markup=inline or None,
                )
            )
    return found


# ---------------------------------------------------------------- CSV


def read_csv(file, table):
    data = read_bytes(file).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(data, newline="")))
    found = []
    if not table:
        # {lang}.csv: key, then the file's language (the path names it).
        for row in rows[1:]:
            if len(row) >= 2 and row[0] and row[1]:
                found.append(entry(file, row[0], row[1]))
        return found
    code = re.compile(r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$")

    def header_of(rows):
        return next(
            (
                at
                for at, row in enumerate(rows[:3])
                if [cell for cell in row[1:] if cell]
                and all(code.match(cell) for cell in row[1:] if cell)
            ),
            None,
        )

    # Godot's delimiters: `,`, else `;` or a tab (the import's `delimiter` setting).
    header_at = None
    for delimiter in (",", ";", "\t"):
        rows = list(csv.reader(io.StringIO(data, newline=""), delimiter=delimiter))
        header_at = header_of(rows)
        if header_at is not None:
            break
    if header_at is None:
        # A game's file of one language without a header (OpenVic's
        # `locales/en_GB/menus.csv`): `KEY;text` rows, read as the game's loader reads them
        # (Godot's `get_csv_line(";")`), a row without a key or a text passed over. The path
        # names the language.
        found = []
        for row in csv.reader(io.StringIO(data, newline=""), delimiter=";"):
            if len(row) >= 2 and row[0] and row[1]:
                found.append(entry(file, row[0], row[1]))
        return found
    header = rows[header_at]
    for row in rows[header_at + 1 :]:
        if not row or not row[0]:
            continue
        for column, language in enumerate(header[1:], start=1):
            if language and code.match(language) and column < len(row) and row[column]:
                found.append(entry(file, row[0], row[column], language=language))
    return found


READERS = {
    "android-xml": read_android,
    "xcstrings": read_xcstrings,
    "arb": read_arb,
    "json": read_json,
    "i18next": lambda file: read_json(file, i18next=True),
    "po": read_po,
    "xliff": read_xliff,
    "xliff2": read_xliff,
    "csv": lambda file: read_csv(file, table=False),
    "csv-table": lambda file: read_csv(file, table=True),
}


def read(format, file):
    if format == "apple-strings":
        return (
            read_stringsdict(file)
            if file.endswith(".stringsdict")
            else read_strings(file)
        )
    return READERS[format](file)


def main():
    format = sys.argv[1]
    found = []
    for file in sys.argv[2:]:
        try:
            found.extend(read(format, file))
        except Exception as error:  # noqa: BLE001 - a file the reader refuses is reported, not fatal
            found.append({"file": file, "error": f"{type(error).__name__}: {error}"})
    if format == "apple-strings":
        # A key of X.stringsdict is one plural key; the entry of X.strings stands in for it
        # where the stringsdict is not read (Apple's convention), so it is not a text of its own.
        plural = {
            (item["file"], item["key"])
            for item in found
            if item["file"].endswith(".stringsdict")
        }
        for item in found:
            if (
                item["file"].endswith(".strings")
                and (item["file"] + "dict", item.get("key")) in plural
            ):
                item["skipped"] = "stands in for the stringsdict's entry"
    json.dump(found, sys.stdout, ensure_ascii=False)


main()
