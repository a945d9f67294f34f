#!/usr/bin/env python3
"""Formats texts with Python's own operators, what a gettext app runs on a translation: `%`
for python-format (`_("%(name)s has %(n)d") % values`) and str.format for python-brace-format
(`_("{name} has {n}").format(**values)`): the Python side of tests/api/placeholder_pairs.rs.

    echo '[{"text": "%(name)s: %(n)d%%", "args": {"name": "Ana", "n": 3}, "style": "percent"}]' \\
      | python3 fmt_python.py
    -> ["Ana: 3%"]

stdin: a JSON list of {"text", "args", "style": "percent" | "brace"}; args is an object
(named placeholders: `% mapping`, `.format(**args)`) or a list (positional: `% tuple`,
`.format(*args)`).
stdout: a JSON list, per text the result or {"error": "..."} (the exception Python raises).
"""
import json
import sys


def formatted(item):
    text, args, style = item["text"], item.get("args", []), item["style"]
    try:
        if style == "percent":
            return text % (args if isinstance(args, dict) else tuple(args))
        if style == "brace":
            return text.format(**args) if isinstance(args, dict) else text.format(*args)
        raise ValueError(f"unknown style {style!r}")
    except (KeyError, IndexError, ValueError, TypeError) as error:
        return {"error": f"{type(error).__name__}: {error}"}


json.dump([formatted(item) for item in json.load(sys.stdin)], sys.stdout, ensure_ascii=False)
