#!/usr/bin/env python3
"""Validates reports against a JSON Schema: validate.py SCHEMA REPORT... Exit 0 all valid, 1 one invalid, 2 usage.

The schemas beside SCHEMA are known by their $id, so its references to their shared parts
(common.schema.json) resolve offline."""
import json
import pathlib
import sys

try:
    import jsonschema
    import referencing
except ImportError:
    sys.exit("validate.py: the Python package 'jsonschema' is missing (pip install jsonschema)")

if len(sys.argv) < 3:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
with open(sys.argv[1]) as schema_file:
    schema = json.load(schema_file)
registry = referencing.Registry()
for sibling in pathlib.Path(sys.argv[1]).resolve().parent.glob("*.schema.json"):
    with open(sibling) as sibling_file:
        contents = json.load(sibling_file)
    registry = registry.with_resource(contents["$id"], referencing.Resource.from_contents(contents))
validator = jsonschema.Draft202012Validator(schema, registry=registry, format_checker=jsonschema.FormatChecker())
invalid = False
for path in sys.argv[2:]:
    with open(path) as report_file:
        report = json.load(report_file)
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
    for error in errors[:20]:
        print(f"{path}: {'/'.join(map(str, error.path)) or '(root)'}: {error.message}", file=sys.stderr)
    if errors:
        invalid = True
    else:
        print(f"{path}: valid against {sys.argv[1]}")
sys.exit(1 if invalid else 0)
