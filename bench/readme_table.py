#!/usr/bin/env python3
"""Copies the results of the last `make bench` into bench/README.md.

usage: readme_table.py [SUMMARY] [README]   (default: bench/summary.md and bench/README.md)

Reads SUMMARY (written by bench/summarize.py: a title, the machine, the run's conditions, the validity
line and the table of cases with their goals and verdicts) and replaces the text between the markers
`<!-- results:begin -->` and `<!-- results:end -->` in README with it, title left out. Exits 1 when the
markers are missing or out of order, or a file cannot be read; README is then left as it was.
"""
import sys

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"


def results_block(summary):
    """The summary without its `# ...` title and surrounding blank lines."""
    lines = summary.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def replace_between_markers(readme, block):
    """README's text with `block` between the markers; ValueError when they are missing or out of order."""
    if readme.count(BEGIN) != 1 or readme.count(END) != 1:
        raise ValueError(f"expected one {BEGIN} and one {END}")
    start = readme.index(BEGIN) + len(BEGIN)
    end = readme.index(END)
    if end < start:
        raise ValueError(f"{END} comes before {BEGIN}")
    return readme[:start] + "\n" + block + "\n" + readme[end:]


def main(argv):
    summary_path = argv[1] if len(argv) > 1 else "bench/summary.md"
    readme_path = argv[2] if len(argv) > 2 else "bench/README.md"
    try:
        with open(summary_path, encoding="utf-8") as f:
            summary = f.read()
        with open(readme_path, encoding="utf-8") as f:
            readme = f.read()
    except OSError as error:
        print(f"readme_table: {error}", file=sys.stderr)
        return 1
    try:
        updated = replace_between_markers(readme, results_block(summary))
    except ValueError as error:
        print(f"readme_table: {readme_path}: {error}", file=sys.stderr)
        return 1
    if updated != readme:
        with open(readme_path, "w", encoding="utf-8") as f:
            f.write(updated)
    print(f"readme_table: {readme_path} holds the results of {summary_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
