"""Tests of bench/readme_table.py, which copies bench/summary.md between the markers in bench/README.md."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "bench", "readme_table.py")
sys.path.insert(0, os.path.join(ROOT, "bench"))

import readme_table  # noqa: E402

SUMMARY = "# Benchmark summary\n\nMachine: 2 cores.\n\n| Case | Median | Goal | |\n|---|---|---|---|\n| B1 | 1/s | ≥ 0.8× | met |\n\n"


class ReadmeTableTests(unittest.TestCase):
    def run_script(self, readme_text):
        with tempfile.TemporaryDirectory() as directory:
            summary = os.path.join(directory, "summary.md")
            readme = os.path.join(directory, "README.md")
            with open(summary, "w", encoding="utf-8") as f:
                f.write(SUMMARY)
            with open(readme, "w", encoding="utf-8") as f:
                f.write(readme_text)
            result = subprocess.run([sys.executable, SCRIPT, summary, readme], capture_output=True, text=True)
            with open(readme, encoding="utf-8") as f:
                return result.returncode, f.read(), result.stderr

    def test_replaces_only_the_text_between_the_markers(self):
        code, text, _ = self.run_script("intro\n<!-- results:begin -->\nold table\n<!-- results:end -->\nafter\n")
        self.assertEqual(code, 0)
        self.assertEqual(
            text,
            "intro\n<!-- results:begin -->\nMachine: 2 cores.\n\n| Case | Median | Goal | |\n|---|---|---|---|\n"
            "| B1 | 1/s | ≥ 0.8× | met |\n<!-- results:end -->\nafter\n")

    def test_a_second_run_changes_nothing(self):
        readme = "<!-- results:begin -->\n<!-- results:end -->\n"
        first = readme_table.replace_between_markers(readme, readme_table.results_block(SUMMARY))
        second = readme_table.replace_between_markers(first, readme_table.results_block(SUMMARY))
        self.assertEqual(first, second)

    def test_missing_markers_fail_and_leave_the_file_alone(self):
        for text in ("no markers\n", "<!-- results:begin -->\nonly the start\n", "<!-- results:end -->\n<!-- results:begin -->\n"):
            code, after, stderr = self.run_script(text)
            self.assertNotEqual(code, 0, text)
            self.assertEqual(after, text)
            self.assertIn("readme_table", stderr)

    def test_a_missing_summary_fails(self):
        with tempfile.TemporaryDirectory() as directory:
            result = subprocess.run(
                [sys.executable, SCRIPT, os.path.join(directory, "none.md"), os.path.join(directory, "README.md")],
                capture_output=True, text=True)
            self.assertNotEqual(result.returncode, 0)


if __name__ == "__main__":
    unittest.main()
