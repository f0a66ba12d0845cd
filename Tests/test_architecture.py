"""docs/ARCHITECTURE.md's module map agrees with Package.swift.

The map (a mermaid flowchart) must name every target under Sources/ and no module that does not exist;
each arrow A --> B must be a dependency A declares; and every dependency a target declares must be
reachable along the map's arrows, so the map never hides an edge that crosses a layer.

File names: every Swift file under Sources/ is named after a type it declares or extends (`Type.swift`,
or `Type+Topic.swift` for an extension of `Type`), and no two top-level types share a name across the
package.

The push path table: every file a row names exists under Sources/, and every function it names is declared
(`func name`) in one of the row's files.

House rules that can be checked by reading the files:
- every `@unchecked Sendable` under Sources/ has, on its line or in the comment lines right above it (at most
  three), a comment `@unchecked Sendable`: followed by what makes it safe, naming a lock, mutex, semaphore,
  queue, thread or loop, or saying the state is immutable;
- no Swift file under Sources/ or Tests/ is longer than 300 lines, but for the ones in LONG_FILES_ALLOWED;
- no test sleeps (Task.sleep, Thread.sleep, sleep, usleep, nanosleep, time.sleep, pg_sleep) outside SLEEPS_ALLOWED: a
  test waits on the event (Tests/TestSupport/Deadline.swift's awaitEvent, a stream, a continuation,
  LineWaiter) or, for something that cannot notify, polls through Deadline.swift's `poll`.

Run by `make test-tools` (and so by `make test`).
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
# `@unchecked Sendable` must be explained in a comment saying `@unchecked Sendable`: and naming one of these.
UNCHECKED_SENDABLE_REASONS = ("lock", "mutex", "semaphore", "queue", "thread", "loop", "immutable")
# How many comment lines above an `@unchecked Sendable` may hold its explanation.
UNCHECKED_SENDABLE_COMMENT_LINES = 3
# The most lines a Swift file under Sources/ or Tests/ may have (one job per file).
MAX_FILE_LINES = 300
# Swift files allowed more than MAX_FILE_LINES for now, each with the reason; an entry for a file that is no
# longer too long fails, so the list shrinks as files are split.
LONG_FILES_ALLOWED: dict[str, str] = {}
# A sleep: Task.sleep(, Thread.sleep(, sleep(, usleep(, nanosleep(, time.sleep(, PostgreSQL's pg_sleep(; in a shell
# script also `sleep 1`.
SLEEP = re.compile(r"\b(?:u|nano|pg_)?sleep\s*\(|(?:^|[;&|(]|\bdo|\bthen|\belse)\s*sleep\s+[\d.$]", re.M)
# Files under Tests/ that may sleep: {path: (how many sleeps, why each is not a wait for an event)}.
SLEEPS_ALLOWED = {
    "Tests/TestSupport/Deadline.swift": (
        3,
        "the deadline of awaitEvent (a timer, not a wait for the event), the interval between two asks of "
        "`poll` (for what cannot notify: PostgreSQL rows, Prometheus scrapes, a hold that is a time) and the "
        "pace of `repeatEvery` (a test about what happens over a stretch of time)",
    ),
    "Tests/PushIOTests/EventLoopTests.swift": (1, "the subject: a loop turn kept busy, so a timer fires late"),
    "Tests/test_deadline.py": (1, "the subject: a stand-in for swift test that hangs, for deadline.py to stop"),
    "Tests/PushStoreTests/PostgresConnectionTests.swift": (
        1,
        "the subject: each caller holds its connection a moment, so 20 callers compete for a pool of 2",
    ),
    "Tests/PushStoreTests/PostgresOutboxReadSnapshotTests.swift": (
        1,
        "the interval between two reads of pg_locks (until the read under test waits for the table lock), on "
        "the connection that holds that lock, inside the pool's synchronous closure where `poll` cannot run",
    ),
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


def check_unchecked_sendable(files):
    """The `@unchecked Sendable`s among `files` ({path: Swift source}) without their explanation, as sentences."""
    problems = []
    for path, source in sorted(files.items()):
        lines = source.splitlines()
        for index, line in enumerate(lines):
            if "@unchecked Sendable" not in line or line.lstrip().startswith("//"):
                continue
            comments = [line.split("//", 1)[1]] if "//" in line else []
            above = index - 1
            while above >= 0 and index - above <= UNCHECKED_SENDABLE_COMMENT_LINES and lines[above].lstrip().startswith("//"):
                comments.insert(0, lines[above].lstrip().lstrip("/"))
                above -= 1
            text = " ".join(comments)
            if "`@unchecked Sendable`:" not in text:
                problems.append(f"{path}:{index + 1}: @unchecked Sendable without a comment `@unchecked Sendable`: <why> right above it")
            elif not any(reason in text.lower() for reason in UNCHECKED_SENDABLE_REASONS):
                problems.append(
                    f"{path}:{index + 1}: the comment on @unchecked Sendable names no lock, mutex, semaphore, queue, thread, "
                    "loop, nor immutability"
                )
    return problems


def check_file_lengths(lengths, allowed=LONG_FILES_ALLOWED, limit=MAX_FILE_LINES):
    """The files among `lengths` ({path: line count}) over `limit` lines and not allowed, and the allowed ones
    that are missing or no longer too long, as sentences."""
    problems = [
        f"{path} has {count} lines, more than {limit}: split it along its jobs"
        for path, count in sorted(lengths.items())
        if count > limit and path not in allowed
    ]
    for path in sorted(allowed):
        if path not in lengths:
            problems.append(f"{path} is allowed more than {limit} lines but does not exist")
        elif lengths[path] <= limit:
            problems.append(f"{path} is allowed more than {limit} lines but has {lengths[path]}: drop its exemption")
    return problems


def check_sleeps(files, allowed=SLEEPS_ALLOWED):
    """The sleeps in `files` ({path under the root: text}) beyond what `allowed` grants each file, and the
    allowances that no longer match, as sentences."""
    problems = []
    for path, text in sorted(files.items()):
        found = [text.count("\n", 0, match.start()) + 1 for match in SLEEP.finditer(text)]
        granted = allowed.get(path, (0, ""))[0]
        if len(found) > granted:
            places = ", ".join(str(line) for line in found)
            problems.append(
                f"{path} sleeps {len(found)} times (lines {places}), {granted} allowed: wait on the event (awaitEvent, "
                "LineWaiter) or poll what cannot notify with Deadline.swift's poll"
            )
        elif path in allowed and len(found) < granted:
            problems.append(f"{path} is allowed {granted} sleeps but has {len(found)}: update SLEEPS_ALLOWED")
    problems += [f"{path} is allowed sleeps but does not exist" for path in sorted(set(allowed) - set(files))]
    return problems


def swift_line_counts():
    """{path under the root: line count} of every Swift file under Sources/ and Tests/."""
    paths = sorted((ROOT / "Sources").rglob("*.swift")) + sorted((ROOT / "Tests").rglob("*.swift"))
    return {str(path.relative_to(ROOT)): len(path.read_text().splitlines()) for path in paths}


def test_files():
    """{path under the root: text} of the Swift, Python and shell files under Tests/ but this checker."""
    paths = [path for path in sorted((ROOT / "Tests").rglob("*")) if path.suffix in (".swift", ".py", ".sh")]
    return {str(path.relative_to(ROOT)): path.read_text() for path in paths if path != Path(__file__).resolve()}


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

class HouseRuleTests(unittest.TestCase):
    def test_every_unchecked_sendable_says_why(self):
        files = {f"Sources/{path}": source for path, source in source_files().items()}
        problems = check_unchecked_sendable(files)
        self.assertEqual(problems, [], "\n".join(problems))

    def test_unchecked_sendable_check_sees_a_missing_or_empty_reason(self):
        good = {
            "A.swift": "/// A box.\n///\n/// `@unchecked Sendable`: `value` is read and written under `lock`.\nfinal class A: @unchecked Sendable {}\n",
            "B.swift": "final class B: @unchecked Sendable {}  // `@unchecked Sendable`: immutable after init\n",
            "C.swift": "/// `@unchecked Sendable`: it is never misused\n/// (its loop thread checks each call).\n/// More.\nclass C: P, @unchecked Sendable {}\n",
        }
        self.assertEqual(check_unchecked_sendable(good), [])
        bare = {"D.swift": "/// A box.\nfinal class D: @unchecked Sendable {}\n"}
        self.assertEqual(
            check_unchecked_sendable(bare), ["D.swift:2: @unchecked Sendable without a comment `@unchecked Sendable`: <why> right above it"]
        )
        far = {"E.swift": "/// `@unchecked Sendable`: under `lock`.\n/// 1\n/// 2\n/// 3\nfinal class E: @unchecked Sendable {}\n"}
        self.assertEqual(len(check_unchecked_sendable(far)), 1)
        vague = {"F.swift": "/// `@unchecked Sendable`: it is safe.\nfinal class F: @unchecked Sendable {}\n"}
        self.assertEqual(
            check_unchecked_sendable(vague),
            ["F.swift:2: the comment on @unchecked Sendable names no lock, mutex, semaphore, queue, thread, loop, nor immutability"],
        )
        gap = {"G.swift": "/// `@unchecked Sendable`: under `lock`.\n\nfinal class G: @unchecked Sendable {}\n"}
        self.assertEqual(len(check_unchecked_sendable(gap)), 1)

    def test_no_swift_file_is_too_long(self):
        problems = check_file_lengths(swift_line_counts())
        self.assertEqual(problems, [], "\n".join(problems))

    def test_length_check_sees_a_long_file_and_a_stale_exemption(self):
        allowed = {"Sources/Big.swift": "being split"}
        self.assertEqual(check_file_lengths({"Sources/A.swift": 300, "Sources/Big.swift": 400}, allowed), [])
        self.assertEqual(
            check_file_lengths({"Tests/A.swift": 301, "Sources/Big.swift": 400}, allowed),
            ["Tests/A.swift has 301 lines, more than 300: split it along its jobs"],
        )
        self.assertEqual(
            check_file_lengths({"Sources/Big.swift": 250}, allowed),
            ["Sources/Big.swift is allowed more than 300 lines but has 250: drop its exemption"],
        )
        self.assertEqual(check_file_lengths({}, allowed), ["Sources/Big.swift is allowed more than 300 lines but does not exist"])

    def test_no_file_is_exempt_from_the_line_limit(self):
        self.assertEqual(LONG_FILES_ALLOWED, {})

    def test_tests_do_not_sleep_for_events(self):
        problems = check_sleeps(test_files())
        self.assertEqual(problems, [], "\n".join(problems))

    def test_sleep_check_sees_each_kind_of_sleep(self):
        allowed = {"Tests/Wait.swift": (1, "its deadline")}
        wait = "try? await Task.sleep(for: timeout)\n"
        self.assertEqual(check_sleeps({"Tests/Wait.swift": wait}, allowed), [])
        for line in (
            "try await Task.sleep(for: .milliseconds(50))",
            "try await Task.sleep(nanoseconds: 1_000)",
            "Thread.sleep(forTimeInterval: 0.1)",
            "usleep(1000)",
            "sleep(1)",
            "time.sleep(0.5)",
            'db.query("SELECT pg_sleep(0.005)")',
            "until ready; do sleep 0.1; done",
        ):
            problems = check_sleeps({"Tests/Wait.swift": wait, "Tests/A.swift": f"x\n{line}\n"}, allowed)
            self.assertEqual(len(problems), 1, line)
            self.assertTrue(problems[0].startswith("Tests/A.swift sleeps 1 times (lines 2), 0 allowed"), problems)
        self.assertEqual(len(check_sleeps({"Tests/Wait.swift": wait * 2}, allowed)), 1)
        self.assertEqual(
            check_sleeps({"Tests/Wait.swift": "done\n"}, allowed), ["Tests/Wait.swift is allowed 1 sleeps but has 0: update SLEEPS_ALLOWED"]
        )
        self.assertEqual(check_sleeps({}, allowed), ["Tests/Wait.swift is allowed sleeps but does not exist"])
        self.assertEqual(check_sleeps({"Tests/A.swift": "let asleep = true\nsleepers(2)\n"}, {}), [])


if __name__ == "__main__":
    unittest.main()
