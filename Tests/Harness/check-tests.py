#!/usr/bin/env python3
"""Finds tests that cannot fail, or can pass without running. Run by `make lint`.

    check-tests.py [REPOSITORY_ROOT]

Swift (Tests/**/*.swift):
  - an @Test function with no check: no #expect, #require, Issue.record or confirmation in its
    body, and no call to a function (of any test target) that checks, directly or through
    the functions it calls;
  - `else { return }` in an @Test function's body: a guard that ends the test quietly where
    `try #require(...)` would fail it.
Python (Tests/**/*.py):
  - zip() without strict=True: a shorter result list would be checked only as far as it goes;
  - pytest.skip / pytest.mark.skip / skipif: a suite that cannot run fails; `make test
    SKIP_SUITES=...` is the one way to leave a suite out.

Exit status 1 when anything is found, each finding on a line of its own as file:line: what.
"""
import ast
import pathlib
import re
import sys

CHECK = re.compile(r"#expect\b|#require\b|\bIssue\.record\b|\bconfirmation\s*[({]")
CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(|\{)")
QUIET_RETURN = re.compile(r"\belse\s*\{\s*return\s*\}")
FUNCTION = re.compile(r"\bfunc\s+([A-Za-z_][A-Za-z0-9_]*)")
TEST_ATTRIBUTE = re.compile(r"@Test\b")


def mask(source):
    """`source` with comments and string literals (interpolations included) blanked out,
    newlines kept, so that braces and names are code only and offsets still map to lines."""
    out = list(source)
    i, n = 0, len(source)

    def blank(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif source.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if source.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif source.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif source[i] == '"' or (source[i] == "#" and re.match(r'#+"', source[i:])):
            j = skip_string(source, i)
            blank(i, j)
            i = j
        else:
            i += 1
    return "".join(out)


def skip_string(source, start):
    """The offset just past the string literal at `start` (raw `#"…"#`, multi-line `\"\"\"`,
    interpolations `\\( … )` with nested strings and parentheses)."""
    hashes = len(source[start:]) - len(source[start:].lstrip("#"))
    i = start + hashes
    quote = '"""' if source.startswith('"""', i) else '"'
    close = quote + "#" * hashes
    escape = "\\" + "#" * hashes
    i += len(quote)
    while i < len(source):
        if source.startswith(escape + "(", i):
            i += len(escape) + 1
            depth = 1
            while i < len(source) and depth:
                if source[i] == '"':
                    i = skip_string(source, i)
                    continue
                depth += {"(": 1, ")": -1}.get(source[i], 0)
                i += 1
        elif source.startswith(escape, i):
            i += len(escape) + 1
        elif source.startswith(close, i):
            return i + len(close)
        elif quote == '"' and source[i] == "\n":
            return i  # an unterminated single-line literal: stop at the line's end
        else:
            i += 1
    return i


def matching(code, open_, pair):
    """The offset of the bracket closing the one at `open_` (pair: "()" or "{}"), or -1."""
    depth = 0
    for k in range(open_, len(code)):
        if code[k] == pair[0]:
            depth += 1
        elif code[k] == pair[1]:
            depth -= 1
            if depth == 0:
                return k
    return -1


# Between a function's parameter list and its body: effects, a return type, a where clause.
NOT_A_SIGNATURE = re.compile(r"[}@;=]|\b(func|var|let|case|init|subscript|typealias|struct|class|enum|extension|protocol|actor)\b")


def body_after(code, start):
    """(open, close) offsets of the body of the function whose name ends at `start`, or None
    when it has none (a protocol requirement). Braces in the parameter list (a default
    closure) are not the body."""
    parameters = code.find("(", start)
    if parameters < 0:
        return None
    after = matching(code, parameters, "()")
    open_ = code.find("{", after)
    if after < 0 or open_ < 0 or NOT_A_SIGNATURE.search(code, after + 1, open_):
        return None
    depth = 0
    for k in range(open_, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return open_, k
    return None


def swift_functions(path):
    """(name, is a test, body text, line of `func`, line of the body's `{`) for each function
    with a body in `path`."""
    source = path.read_text()
    code = mask(source)
    found = []
    for match in FUNCTION.finditer(code):
        block = body_after(code, match.end())
        if block is None:
            continue
        # The function's attributes are the text since the previous declaration or block.
        before = code[max(code.rfind("}", 0, match.start()), code.rfind("{", 0, match.start()), 0):match.start()]
        is_test = TEST_ATTRIBUTE.search(before) is not None
        line = code.count("\n", 0, match.start()) + 1
        body_line = line + code.count("\n", match.start(), block[0])
        found.append((match.group(1), is_test, code[block[0]:block[1] + 1], line, body_line))
    return found


def check_swift(root):
    functions = []
    for path in sorted((root / "Tests").rglob("*.swift")):
        functions += [(path, *entry) for entry in swift_functions(path)]
    # Names of functions that check, directly or through what they call (to a fixed point).
    calls = {}
    checking = set()
    for path, name, is_test, body, line, _ in functions:
        if not is_test:
            calls.setdefault(name, set()).update(CALL.findall(body))
            if CHECK.search(body):
                checking.add(name)
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            if name not in checking and called & checking:
                checking.add(name)
                changed = True
    findings = []
    for path, name, is_test, body, line, body_line in functions:
        if not is_test:
            continue
        relative = path.relative_to(root)
        if not CHECK.search(body) and not (set(CALL.findall(body)) - {name}) & checking:
            findings.append(f"{relative}:{line}: @Test {name} checks nothing (no #expect, #require, Issue.record, or a call to a helper that checks)")
        for quiet in QUIET_RETURN.finditer(body):
            quiet_line = body_line + body.count("\n", 0, quiet.start())
            findings.append(f"{relative}:{quiet_line}: @Test {name} returns quietly (`else {{ return }}`): use `try #require(...)`")
    return findings


def check_python(root):
    findings = []
    for path in sorted((root / "Tests").rglob("*.py")):
        relative = path.relative_to(root)
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = dotted(node.func)
                if name == "zip" and not any(k.arg == "strict" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords):
                    findings.append(f"{relative}:{node.lineno}: zip() without strict=True stops at the shorter input: pass strict=True")
            name = dotted(node) if isinstance(node, ast.Attribute) else None
            if name in ("pytest.skip", "pytest.mark.skip", "pytest.mark.skipif", "pytest.importorskip"):
                findings.append(f"{relative}:{node.lineno}: {name}: a suite that cannot run fails (make test SKIP_SUITES=... leaves one out by name)")
    return findings


def dotted(node):
    """`a.b.c` for a chain of attribute accesses on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id] + parts[::-1])


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    findings = check_swift(root) + check_python(root)
    for finding in findings:
        print(finding)
    if findings:
        print(f"check-tests: {len(findings)} finding(s)")
        return 1
    print("check-tests: every @Test checks something and ends loudly; every zip() is strict; no skips")
    return 0


if __name__ == "__main__":
    sys.exit(main())
