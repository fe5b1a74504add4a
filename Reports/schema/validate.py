#!/usr/bin/env python3
"""Validates a report against a JSON Schema: validate.py SCHEMA REPORT. Exit 0 valid, 1 invalid, 2 usage."""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate.py: the Python package 'jsonschema' is missing (pip install jsonschema)")

if len(sys.argv) != 3:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
with open(sys.argv[1]) as schema_file, open(sys.argv[2]) as report_file:
    schema, report = json.load(schema_file), json.load(report_file)
validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
for error in errors[:20]:
    print(f"{sys.argv[2]}: {'/'.join(map(str, error.path)) or '(root)'}: {error.message}", file=sys.stderr)
if errors:
    sys.exit(1)
print(f"{sys.argv[2]}: valid against {sys.argv[1]}")
