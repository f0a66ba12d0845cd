"""docs/ARCHITECTURE.md's module map agrees with Package.swift.

The map (a mermaid flowchart) must name every target under Sources/ and no module that does not exist;
each arrow A --> B must be a dependency A declares; and every dependency a target declares must be
reachable along the map's arrows, so the map never hides an edge that crosses a layer.

File names: every Swift file under Sources/ is named after a type it declares or extends (`Type.swift`,
or `Type+Topic.swift` for an extension of `Type`), and no two top-level types share a name across the
package.

The push path table: every file a row names exists under Sources/, and every function it names is declared
(`func name`) in one of the row's files. Run by `make test-tools` (and so by `make test`).
"""

import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Node ids the map uses for targets whose names are not valid mermaid ids.
ALIASES = {"server": "push-server"}
# Files under Sources/ named after no type they declare or extend, each with the reason.
UNNAMED_ALLOWED = {
    "PushHTTP2/HTTP2Session+Callbacks.swift": "nghttp2's C callbacks of HTTP2Session: C function pointers are free functions",
}
# A top-level declaration: attributes and modifiers, then the kind and the (possibly dotted) name.
DECLARATION = re.compile(
    r"^(?:@[\w().,: ]+\s+)*"
    r"(?:(?:public|package|internal|private|fileprivate|final|open|indirect|nonisolated)(?:\([^)]*\))?\s+)*"
    r"(struct|class|enum|protocol|actor|extension|typealias)\s+([A-Za-z_][\w.]*)",
    re.M,
)


def balanced(text, start):
    """The text from `start` (an opening parenthesis) to its matching closing one."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    raise ValueError("unbalanced parentheses in Package.swift")


def package_targets(text):
    """{name: (kind, path or None, set of dependency names)} for every target in Package.swift."""
    targets = {}
    for match in re.finditer(r"\.(target|executableTarget|systemLibrary|testTarget)\(", text):
        body = balanced(text, match.end() - 1)
        name = re.search(r'name:\s*"([^"]+)"', body).group(1)
        path = re.search(r'path:\s*"([^"]+)"', body)
        dependencies = re.search(r"dependencies:\s*\[([^\]]*)\]", body)
        names = set(re.findall(r'"([^"]+)"', dependencies.group(1))) if dependencies else set()
        targets[name] = (match.group(1), path.group(1) if path else None, names)
    return targets


def map_graph(markdown):
    """(nodes, edges) of the first mermaid block under '## Module map'."""
    section = markdown.split("## Module map", 1)[1]
    block = section.split("```mermaid", 1)[1].split("```", 1)[0]
    nodes, edges = set(), set()
    node = r"([A-Za-z][A-Za-z0-9_-]*)(?:\[[^\]]*\])?"
    for line in block.splitlines():
        line = line.strip()
        if not line or line.startswith(("flowchart", "subgraph", "end", "%%")):
            continue
        arrow = re.fullmatch(node + r"\s*-->\s*" + node, line)
        if arrow:
            source, target = (ALIASES.get(n, n) for n in arrow.groups())
            nodes |= {source, target}
            edges.add((source, target))
            continue
        single = re.fullmatch(node, line)
        if single:
            nodes.add(ALIASES.get(single.group(1), single.group(1)))
            continue
        raise AssertionError(f"unreadable line in the module map: {line}")
    return nodes, edges


def reachable(edges, start):
    seen, stack = set(), [start]
    while stack:
        current = stack.pop()
        for source, target in edges:
            if source == current and target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def check(package_text, markdown):
    """The disagreements between the package and the map, as sentences (empty when they agree)."""
    targets = package_targets(package_text)
    sources = {
        name
        for name, (kind, path, _) in targets.items()
        if kind != "testTarget" and (path is None or path.startswith("Sources/"))
    }
    nodes, edges = map_graph(markdown)
    problems = []
    problems += [f"{name} is a target under Sources/ but not in the map" for name in sorted(sources - nodes)]
    problems += [f"{name} is in the map but is no target under Sources/" for name in sorted(nodes - sources)]
    for source, target in sorted(edges):
        if source in targets and target not in targets[source][2]:
            problems.append(f"the map draws {source} --> {target}, which Package.swift does not declare")
    for name in sorted(sources & nodes):
        hidden = {d for d in targets[name][2] if d in sources} - reachable(edges, name)
        problems += [f"{name} depends on {d}, which the map does not reach from it" for d in sorted(hidden)]
    return problems


def declarations(source):
    """[(kind, name)] of the top-level types, protocols, type aliases and extensions in Swift `source`."""
    return DECLARATION.findall(source)


def check_names(files, allowed=UNNAMED_ALLOWED):
    """The naming problems among `files` ({path under Sources/: Swift source}), as sentences."""
    problems = []
    homes = {}
    for path, source in sorted(files.items()):
        found = declarations(source)
        module = path.split("/", 1)[0]
        for kind, name in found:
            if kind != "extension":
                homes.setdefault(name, []).append(f"{module} ({path})")
        stem = path.rsplit("/", 1)[-1].removesuffix(".swift")
        if stem == "main" or path in allowed:
            continue
        named = {name for _, name in found} | {name.split(".", 1)[0] for _, name in found}
        if stem.split("+", 1)[0] not in named:
            held = ", ".join(sorted({name for _, name in found})) or "nothing"
            problems.append(f"{path} is named after no type it declares or extends (it holds {held})")
    for name, places in sorted(homes.items()):
        if len(places) > 1:
            problems.append(f"{name} is declared more than once: {'; '.join(places)}")
    problems += [f"{path} is allowed an unnamed file but does not exist" for path in sorted(set(allowed) - set(files))]
    return problems


def push_path_rows(markdown):
    """The rows of the table in '## The push path': (number, files, functions)."""
    section = markdown.split("## The push path", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].isdigit():
            continue
        files = re.findall(r"`([\w/+.-]+\.swift)`", cells[2])
        functions = [name.split(".")[-1].split("(")[0] for name in re.findall(r"`([\w.]+(?:\([\w:]*\))?)`", cells[3])]
        rows.append((cells[0], files, functions))
    return rows


def check_push_path(markdown, files):
    problems = []
    rows = push_path_rows(markdown)
    if not rows:
        return ["the push path section holds no table rows"]
    for number, paths, functions in rows:
        texts = []
        for path in paths:
            if path not in files:
                problems.append(f"row {number}: {path} is no file under Sources/")
            else:
                texts.append(files[path])
        for name in functions:
            if texts and not any(re.search(rf"\bfunc {re.escape(name)}\b", text) for text in texts):
                problems.append(f"row {number}: no func {name} in {', '.join(paths)}")
    return problems


def source_files():
    return {str(path.relative_to(ROOT / "Sources")): path.read_text() for path in sorted((ROOT / "Sources").rglob("*.swift"))}


class ArchitectureMapTests(unittest.TestCase):
    def test_map_agrees_with_package(self):
        problems = check((ROOT / "Package.swift").read_text(), (ROOT / "docs/ARCHITECTURE.md").read_text())
        self.assertEqual(problems, [], "\n".join(problems))

    def test_check_sees_each_kind_of_disagreement(self):
        package = """
            .target(name: "A", dependencies: ["B"]),
            .target(name: "B"),
            .target(name: "C", dependencies: ["A", "B"]),
            .testTarget(name: "ATests", dependencies: ["A"]),
        """
        good = "## Module map\n```mermaid\nflowchart BT\n  A --> B\n  C[C<br/>x] --> A\n```\n"
        self.assertEqual(check(package, good), [])
        missing = good.replace("  C[C<br/>x] --> A\n", "")
        self.assertEqual(check(package, missing), ["C is a target under Sources/ but not in the map"])
        extra = good.replace("  A --> B\n", "  A --> B\n  D\n")
        self.assertEqual(check(package, extra), ["D is in the map but is no target under Sources/"])
        wrong = good.replace("  A --> B\n", "  A --> B\n  B --> A\n")
        self.assertEqual(check(package, wrong), ["the map draws B --> A, which Package.swift does not declare"])
        hidden = good.replace("  A --> B\n", "  B\n")
        self.assertEqual(
            check(package, hidden),
            ["A depends on B, which the map does not reach from it", "C depends on B, which the map does not reach from it"],
        )



class PushPathTests(unittest.TestCase):
    def test_table_names_real_files_and_functions(self):
        problems = check_push_path((ROOT / "docs/ARCHITECTURE.md").read_text(), source_files())
        self.assertEqual(problems, [], "\n".join(problems))

    def test_check_sees_a_moved_file_and_a_renamed_function(self):
        files = {"A/Thing.swift": "struct Thing {\n    func go() {}\n}\n"}
        table = "## The push path\n\n| # | way | file | function | hands on |\n|---|---|---|---|---|\n| 1 | down | `A/Thing.swift` | `Thing.go` | x |\n"
        self.assertEqual(check_push_path(table, files), [])
        self.assertEqual(check_push_path(table.replace("A/Thing", "A/Gone"), files), ["row 1: A/Gone.swift is no file under Sources/"])
        self.assertEqual(check_push_path(table.replace("Thing.go", "Thing.run"), files), ["row 1: no func run in A/Thing.swift"])
        self.assertEqual(check_push_path("## The push path\n\nprose only\n", files), ["the push path section holds no table rows"])


class FileNameTests(unittest.TestCase):
    def test_files_are_named_after_their_types(self):
        problems = check_names(source_files())
        self.assertEqual(problems, [], "\n".join(problems))

    def test_check_sees_each_kind_of_problem(self):
        good = {
            "A/Thing.swift": "public struct Thing {}\n",
            "A/Thing+Codec.swift": "extension Thing {\n    struct Codec {}\n}\n",
            "A/Outer+Inner.swift": "extension Outer.Inner {}\n",
            "A/main.swift": "print(1)\n",
            "B/Other.swift": "@frozen public final class Other {}\nenum Helper {}\n",
        }
        self.assertEqual(check_names(good, allowed={}), [])
        unnamed = good | {"A/Bag.swift": "struct One {}\n    struct Nested {}\n"}
        self.assertEqual(check_names(unnamed, allowed={}), ["A/Bag.swift is named after no type it declares or extends (it holds One)"])
        self.assertEqual(check_names(unnamed, allowed={"A/Bag.swift": "why"}), [])
        twice = good | {"B/Thing.swift": "struct Thing {}\n"}
        self.assertEqual(check_names(twice, allowed={}), ["Thing is declared more than once: A (A/Thing.swift); B (B/Thing.swift)"])
        self.assertEqual(check_names(good, allowed={"A/Gone.swift": "why"}), ["A/Gone.swift is allowed an unnamed file but does not exist"])


if __name__ == "__main__":
    unittest.main()
