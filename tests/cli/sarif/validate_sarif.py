#!/usr/bin/env python3
"""Validates a SARIF log against the OASIS SARIF 2.1.0 JSON schema beside this script.

Usage: validate_sarif.py FILE [--results N]

Prints "FILE: valid SARIF 2.1.0" and exits 0, or prints every error as "FILE: PATH: MESSAGE",
PATH being the JSON path of the offending value ($.runs[0].results[2].level), and exits 1.
With --results N, a log whose first run does not hold exactly N results is an error too.
A file that cannot be read or is not JSON exits 2. Needs python3-jsonschema and, for the "uri"
and "uri-reference" formats the schema uses, python3-rfc3987 (without it those formats would go
unchecked, so the script refuses to run).
"""
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sarif-schema-2.1.0.json")


def json_path(error):
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def main(argv):
    expected = None
    if len(argv) == 4 and argv[2] == "--results" and argv[3].isdigit():
        expected = int(argv[3])
    elif len(argv) != 2:
        print("usage: validate_sarif.py FILE [--results N]", file=sys.stderr)
        return 2
    try:
        import rfc3987  # noqa: F401  (the format checker uses it for "uri" and "uri-reference")
    except ImportError:
        print("validate_sarif.py: python3-rfc3987 is needed to check URIs", file=sys.stderr)
        return 2
    path = argv[1]
    try:
        with open(path, encoding="utf-8") as f:
            log = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        return 2
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(map(str, e.absolute_path)))
    messages = [f"{json_path(e)}: {e.message}" for e in errors]
    if expected is not None:
        runs = log.get("runs") if isinstance(log, dict) else None
        results = runs[0].get("results") if runs and isinstance(runs[0], dict) else None
        count = len(results) if isinstance(results, list) else 0
        if count != expected:
            messages.append(f"$.runs[0].results: {count} results, expected {expected}")
    for message in messages:
        print(f"{path}: {message}")
    if messages:
        print(f"{path}: {len(messages)} error{'s' if len(messages) != 1 else ''}")
        return 1
    print(f"{path}: valid SARIF 2.1.0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
