#!/usr/bin/env python3
"""validate_json.py SCHEMA DOCUMENT: exit 0 when DOCUMENT (a file, or - for stdin) is
valid against the JSON Schema SCHEMA (draft 7, python3-jsonschema), else print the first
error and exit 1."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
doc = json.load(sys.stdin if sys.argv[2] == "-" else open(sys.argv[2]))
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
if errors:
    e = errors[0]
    print(f"invalid at {'/'.join(map(str, e.path)) or '(root)'}: {e.message}")
    sys.exit(1)
print("valid")
