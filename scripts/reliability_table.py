#!/usr/bin/env python3
"""Writes the reliability table (docs/reliability.md) for scripts/reliability.sh.

usage: reliability_table.py TABLE STEPS STAMP < rows

Standard input holds one "STEP<TAB>| markdown row |" line per result. Each step has its own
block between <!-- step:NAME --> markers; the blocks of the steps in STEPS (comma-separated) are
rewritten with their rows and STAMP (date, machine, load), the other blocks are kept as they were,
so the GPU machine's block and the CPU machine's blocks live in one file.
"""
import re
import sys

TITLES = {
    "asan": "AddressSanitizer and UndefinedBehaviorSanitizer",
    "fuzz": "Fuzzing",
    "tsan": "ThreadSanitizer",
    "release": "Long run, load and output faults",
    "gpu": "GPU failure modes",
}
INTRO = """# Reliability

What is checked beyond the test suite, how, and the result, as written by
`scripts/reliability.sh` (CI runs the sanitizer, fuzz and ThreadSanitizer steps with `--ci` on
every change; the release build's long-run, load and fault tests run with the test suite; the GPU
step runs on a machine with a CUDA device). Times are wall seconds on the machine each block
names, under the load shown there.
"""


def block(step, rows, stamp):
    lines = [f"<!-- step:{step} -->", f"## {TITLES[step]}", "",
             "| check | what runs | result | time |", "|---|---|---|---|"]
    lines += rows or ["| (no result) | | | |"]
    lines += ["", f"Run on {stamp} (`scripts/reliability.sh --steps {step}`).", f"<!-- /step:{step} -->"]
    return "\n".join(lines)


def main():
    path, steps, stamp = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
    rows = {}
    for line in sys.stdin:
        line = line.rstrip("\n")
        if "\t" in line:
            step, row = line.split("\t", 1)
            rows.setdefault(step, []).append(row)
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        text = INTRO
    for step in TITLES:  # in the table's order
        if step not in steps:
            continue
        new = block(step, rows.get(step, []), stamp)
        pattern = re.compile(rf"<!-- step:{step} -->.*?<!-- /step:{step} -->", re.S)
        if pattern.search(text):
            text = pattern.sub(lambda _: new, text)
            continue
        later = [text.index(f"<!-- step:{s} -->") for s in list(TITLES)[list(TITLES).index(step) + 1:]
                 if f"<!-- step:{s} -->" in text]
        if later:
            text = text[:later[0]] + new + "\n\n" + text[later[0]:]
        else:
            text = text.rstrip("\n") + "\n\n" + new + "\n"
    with open(path, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")


if __name__ == "__main__":
    main()
