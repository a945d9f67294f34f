"""Reads an Xcode String Catalog with the pydantic models of PyPI `string-catalog`, strictly:
every member must be one the models know (a member they would drop fails), and prints
{"sourceLanguage", "strings": {key: {"comment", "shouldTranslate", "extractionState",
"localizations": {lang: {"state", "value"} or {"plural": {category: {"state", "value"}}}}}}}.

Usage: python xcstrings_read.py FILE
"""
import json
import sys

from string_catalog.models import StringCatalog

raw = json.load(open(sys.argv[1], encoding="utf-8"))
catalog = StringCatalog.model_validate(raw)
# Strict: what the models read, written back, is the whole file.
again = json.loads(catalog.model_dump_json(by_alias=True, exclude_none=True))
if again != raw:
    sys.exit("the catalog has members the String Catalog models do not know")

out = {"sourceLanguage": catalog.source_language.value, "strings": {}}
for name, entry in catalog.strings.items():
    localizations = {}
    for language, localization in (entry.localizations or {}).items():
        if localization.string_unit is not None:
            unit = localization.string_unit
            localizations[language] = {"state": unit.state.value, "value": unit.value}
        elif localization.variations is not None and localization.variations.plural is not None:
            localizations[language] = {
                "plural": {
                    category.value: {"state": form.string_unit.state.value, "value": form.string_unit.value}
                    for category, form in localization.variations.plural.items()
                }
            }
    out["strings"][name] = {
        "comment": entry.comment,
        "shouldTranslate": entry.should_translate,
        "extractionState": entry.extraction_state.value if entry.extraction_state else None,
        "localizations": localizations,
    }
json.dump(out, sys.stdout, ensure_ascii=False)
