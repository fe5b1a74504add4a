"""The shape `make lint` holds every Swift file to, beyond what swift-format checks: no line
over 120 columns (swift-format leaves long string literals and comments alone) and no file
over 300 lines (one concern per file). Prints each finding and exits 1 on any."""
import os
import sys

MAX_COLUMNS = 120
MAX_LINES = 300


def swift_files(paths):
    for path in paths:
        if os.path.isfile(path):
            if path.endswith(".swift"):
                yield path
            continue
        for root, folders, files in os.walk(path):
            folders[:] = [f for f in folders if not f.startswith(".build")]
            yield from (os.path.join(root, f) for f in files if f.endswith(".swift"))


findings = []
for path in swift_files(sys.argv[1:]):
    with open(path, encoding="utf-8") as file:
        lines = file.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > MAX_LINES:
        findings.append(f"{path}: {len(lines)} lines, over {MAX_LINES}: split it by concern")
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_COLUMNS:
            findings.append(f"{path}:{number}: {len(line)} columns, over {MAX_COLUMNS}")
for finding in findings:
    print(finding)
sys.exit(1 if findings else 0)
