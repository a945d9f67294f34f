"""Reads a gettext PO file with polib and prints its entries as JSON: [{"msgctxt", "msgid",
"msgid_plural", "msgstr", "msgstr_plural": {"0": ...}, "fuzzy", "comment"}], with the header's
Plural-Forms.

Usage: python po_read.py FILE
"""
import json
import sys

import polib

po = polib.pofile(sys.argv[1], wrapwidth=0)
entries = [
    {
        "msgctxt": entry.msgctxt,
        "msgid": entry.msgid,
        "msgid_plural": entry.msgid_plural or None,
        "msgstr": entry.msgstr,
        "msgstr_plural": {str(index): text for index, text in sorted(entry.msgstr_plural.items())},
        "fuzzy": "fuzzy" in entry.flags,
        "comment": entry.comment or None,
    }
    for entry in po
    if not entry.obsolete
]
json.dump({"pluralForms": po.metadata.get("Plural-Forms"), "entries": entries}, sys.stdout, ensure_ascii=False)
