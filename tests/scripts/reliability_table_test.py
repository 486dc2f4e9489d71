#!/usr/bin/env python3
"""scripts/reliability_table.py: each run rewrites the blocks of the steps it ran, keeps the
others as they were, and places a new block in the table's step order."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "reliability_table.py")


def write(table, steps, stamp, rows):
    text = "".join(f"{step}\t{row}\n" for step, row in rows)
    subprocess.run([sys.executable, SCRIPT, table, steps, stamp], input=text, text=True, check=True)
    with open(table) as f:
        return f.read()


class ReliabilityTable(unittest.TestCase):
    def test_blocks_are_replaced_kept_and_ordered(self):
        with tempfile.TemporaryDirectory() as tmp:
            table = os.path.join(tmp, "reliability.md")
            write(table, "asan,gpu", "first", [("asan", "| asan row 1 | | | |"), ("gpu", "| gpu row | | | |")])
            text = write(table, "fuzz,asan", "second", [("fuzz", "| fuzz row | | | |"), ("asan", "| asan row 2 | | | |")])
            self.assertTrue(text.startswith("# Reliability\n"))
            self.assertNotIn("asan row 1", text)
            self.assertIn("| asan row 2 | | | |", text)
            self.assertIn("| gpu row | | | |", text)  # a step not run keeps its block and stamp
            self.assertIn("Run on first (`scripts/reliability.sh --steps gpu`)", text)
            self.assertIn("Run on second (`scripts/reliability.sh --steps asan`)", text)
            order = [text.index(f"<!-- step:{s} -->") for s in ("asan", "fuzz", "gpu")]
            self.assertEqual(order, sorted(order))
            self.assertEqual(text.count("<!-- step:asan -->"), 1)

    def test_a_step_without_rows_says_so(self):
        with tempfile.TemporaryDirectory() as tmp:
            text = write(os.path.join(tmp, "t.md"), "tsan", "now", [])
            self.assertIn("| (no result) | | | |", text)


if __name__ == "__main__":
    unittest.main()
