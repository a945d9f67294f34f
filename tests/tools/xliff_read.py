"""Reads an XLIFF 1.2 or 2.0 file with translate-toolkit (the store Weblate and Pootle read
XLIFF with) and prints its units as JSON: {"version", "sourceLanguage", "targetLanguage",
"units": [{"name", "source", "target", "fuzzy", "translated", "translatable", "notes"}]}.
A unit's name is its `resname`/`name`, else its `id`.

Usage: python xliff_read.py FILE
"""
import json
import sys

from translate.storage import xliff, xliff2

data = open(sys.argv[1], "rb").read()
version_2 = b"urn:oasis:names:tc:xliff:document:2.0" in data
store = (xliff2.Xliff2File if version_2 else xliff.xlifffile).parsestring(data)
units = []



def notes_of(unit, element):
    if not version_2:
        return unit.getnotes() or None
    # translate-toolkit 3.20 looks for 2.0's <notes> in the segment; the standard puts them in
    # the unit (the segment may hold only source and target), so they are read from there.
    namespace = "{urn:oasis:names:tc:xliff:document:2.0}"
    notes = element.find(namespace + "notes")
    texts = [] if notes is None else [note.text for note in notes.iter(namespace + "note") if note.text]
    return "\n".join(texts) or None


for unit in store.units:
    element = unit.getunitelement() if version_2 else unit.xmlelement
    name = element.get("name" if version_2 else "resname") or element.get("id")
    units.append(
        {
            "name": name,
            "source": unit.source,
            "target": unit.target if unit.target else None,
            # 1.2: a needs-review state; 2.0: `initial` with a target.
            "fuzzy": unit.isfuzzy() if version_2 else unit.isreview(),
            "translated": unit.istranslated(),
            "translatable": unit.istranslatable(),
            "notes": notes_of(unit, element),
        }
    )
json.dump(
    {
        "version": "2.0" if version_2 else "1.2",
        "sourceLanguage": store.getsourcelanguage(),
        "targetLanguage": store.gettargetlanguage(),
        "units": units,
    },
    sys.stdout,
    ensure_ascii=False,
)
