#!/usr/bin/env python3
"""Reads exported files back with parsers that are not locstore's, and prints JSON.

    readback.py json FILE        -> the object, via Python's json module
    readback.py csv FILE         -> the rows, via Python's csv module
    readback.py strings FILE     -> the dictionary, via openstep_plist (a port of Apple's parser)
    readback.py plist FILE       -> the property list (a .stringsdict), via Python's plistlib
    readback.py android APK      -> {resource name: value} from the APK's resources.arsc: a
                                    string, {"text", "spans": [[tag, first, last]]} for a styled
                                    string, {"plural": {quantity: value}} for a plurals bag

The Android reader parses the binary resource table that aapt2 built, so what it prints is
exactly what an app would get from getString(): no text dump, no second escaping layer.
"""
import csv
import io
import json
import struct
import sys
import zipfile


def read_json(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        raise SystemExit("JSON file starts with a BOM")
    return json.loads(raw.decode("utf-8"))


def read_csv(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        raise SystemExit("CSV file starts with a BOM")
    return list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))


def read_strings(path):
    import openstep_plist

    with open(path, "rb") as f:
        raw = f.read()
    # CoreFoundation reads a file with a UTF-16 byte-order mark as UTF-16, any other as UTF-8.
    text = raw.decode("utf-16") if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else raw.decode("utf-8")
    return openstep_plist.loads(text)


def read_plist(path):
    import plistlib

    with open(path, "rb") as f:
        return plistlib.load(f)


def string_pool(data, offset):
    """Decodes a ResStringPool chunk starting at offset: its strings, with each styled
    string's spans as (tag, first, last) after it in a second list."""
    strings = pool_strings(data, offset)
    _type, header_size, _size, count, style_count, _flags, _strings_start, styles_start = struct.unpack_from(
        "<HHIIIIII", data, offset
    )
    spans = [[] for _ in strings]
    if style_count:
        style_offsets = struct.unpack_from("<%dI" % style_count, data, offset + header_size + 4 * count)
        for index, style_offset in enumerate(style_offsets):
            pos = offset + styles_start + style_offset
            while True:
                name = struct.unpack_from("<I", data, pos)[0]
                if name == 0xFFFFFFFF:
                    break
                first, last = struct.unpack_from("<II", data, pos + 4)
                spans[index].append((name, first, last))
                pos += 12
    return strings, spans


def pool_strings(data, offset):
    """The strings of a ResStringPool chunk."""
    _type, header_size, _size, count, _styles, flags, strings_start, _ = struct.unpack_from("<HHIIIIII", data, offset)
    utf8 = bool(flags & 0x100)
    offsets = struct.unpack_from("<%dI" % count, data, offset + header_size)
    base = offset + strings_start
    result = []
    for start in offsets:
        pos = base + start
        if utf8:
            # UTF-16 length, then UTF-8 length, each one or two bytes.
            for _ in range(2):
                length = data[pos]
                pos += 1
                if length & 0x80:
                    length = ((length & 0x7F) << 8) | data[pos]
                    pos += 1
            # aapt2 writes characters outside the BMP as two encoded surrogates (CESU-8).
            text = data[pos : pos + length].decode("utf-8", "surrogatepass")
            result.append(text.encode("utf-16-le", "surrogatepass").decode("utf-16-le"))
        else:
            length = struct.unpack_from("<H", data, pos)[0]
            pos += 2
            if length & 0x8000:
                length = ((length & 0x7FFF) << 16) | struct.unpack_from("<H", data, pos)[0]
                pos += 2
            result.append(data[pos : pos + 2 * length].decode("utf-16-le"))
    return result


QUANTITIES = {0x01000004: "other", 0x01000005: "zero", 0x01000006: "one", 0x01000007: "two", 0x01000008: "few", 0x01000009: "many"}


def read_android(apk):
    """Every string and plurals resource of the (single) package, for an APK built from one
    values folder."""
    data = zipfile.ZipFile(apk).read("resources.arsc")
    _type, header_size, size, _packages = struct.unpack_from("<HHII", data, 0)
    pos = header_size
    global_pool = None
    global_spans = None
    values = {}
    # A reference (`@string/other`) is read as the name of the resource it points to: the
    # ids of two builds differ when their resources do.
    names = {}
    references = []

    def value_of(index):
        spans = global_spans[index]
        if not spans:
            return global_pool[index]
        return {"text": global_pool[index], "spans": [[global_pool[name], first, last] for name, first, last in spans]}

    while pos < size:
        chunk_type, chunk_header, chunk_size = struct.unpack_from("<HHI", data, pos)
        if chunk_type == 0x0001:
            global_pool, global_spans = string_pool(data, pos)
        elif chunk_type == 0x0200:
            package_id = struct.unpack_from("<I", data, pos + 8)[0]
            type_strings, _last_type, key_strings = struct.unpack_from("<III", data, pos + 12 + 256)
            types = pool_strings(data, pos + type_strings)
            keys = pool_strings(data, pos + key_strings)
            inner = pos + chunk_header
            while inner < pos + chunk_size:
                sub_type, sub_header, sub_size = struct.unpack_from("<HHI", data, inner)
                if sub_type == 0x0201:
                    type_id, flags, _res, entry_count, entries_start = struct.unpack_from("<BBHII", data, inner + 8)
                    if not flags & 0x01:
                        offsets = struct.unpack_from("<%dI" % entry_count, data, inner + sub_header)
                        for index, entry_offset in enumerate(offsets):
                            if entry_offset != 0xFFFFFFFF:
                                key = struct.unpack_from("<I", data, inner + entries_start + entry_offset + 4)[0]
                                resource = (package_id << 24) | (type_id << 16) | index
                                names[resource] = "@%s/%s" % (types[type_id - 1], keys[key])
                    if types[type_id - 1] in ("string", "plurals"):
                        if flags & 0x01:
                            raise SystemExit("sparse resource types are not supported by this reader")
                        offsets = struct.unpack_from("<%dI" % entry_count, data, inner + sub_header)
                        for entry_offset in offsets:
                            if entry_offset == 0xFFFFFFFF:
                                continue
                            entry = inner + entries_start + entry_offset
                            entry_size, entry_flags, key = struct.unpack_from("<HHI", data, entry)
                            if entry_flags & 0x0001:
                                _parent, count = struct.unpack_from("<II", data, entry + 8)
                                forms = {}
                                for item in range(count):
                                    name, _vsize, _res0, data_type, value = struct.unpack_from(
                                        "<IHBBI", data, entry + entry_size + 12 * item
                                    )
                                    if data_type != 0x03:
                                        raise SystemExit("plurals %s has a non-string item" % keys[key])
                                    forms[QUANTITIES[name]] = value_of(value)
                                values[keys[key]] = {"plural": forms}
                                continue
                            _vsize, _res0, data_type, value = struct.unpack_from("<HBBI", data, entry + entry_size)
                            if data_type == 0x01:
                                references.append((keys[key], value))
                                continue
                            if data_type != 0x03:
                                raise SystemExit("resource %s is not a plain string (type %#x)" % (keys[key], data_type))
                            values[keys[key]] = value_of(value)
                inner += sub_size
        pos += chunk_size
    for name, resource in references:
        values[name] = {"reference": names.get(resource, "%#010x" % resource)}
    return values


def main():
    kind, path = sys.argv[1], sys.argv[2]
    reader = {"json": read_json, "csv": read_csv, "strings": read_strings, "plist": read_plist, "android": read_android}[kind]
    json.dump(reader(path), sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
