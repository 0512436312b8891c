#!/usr/bin/env python3
"""Checks the links between the repository's Markdown files. Run by `make lint`.

    check-doc-links.py [REPOSITORY_ROOT]

Every relative link in a tracked *.md file ([text](path), [text](path#anchor), [text](#anchor))
must name a file or directory that exists, and an anchor must be a heading of the file it
names (GitHub's slugs: lower case, punctuation but '-' and '_' dropped, spaces to '-', a
repeated heading numbered -1, -2 ...). Links to other sites and mailto: are not checked.

Exit status 1 when a link is broken, each on a line of its own as file:line: what.
"""
import pathlib
import re
import subprocess
import sys

LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(text: str) -> str:
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path: pathlib.Path, cache: dict) -> set:
    if path not in cache:
        seen: dict = {}
        found = set()
        in_fence = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            match = None if in_fence else HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        cache[path] = found
    return cache[path]


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
                            capture_output=True, text=True, check=True).stdout.split()
    cache: dict = {}
    problems = []
    for name in listed:
        source = root / name
        if not source.is_file():
            continue
        in_fence = False
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                destination = source if not file_part else (source.parent / file_part).resolve()
                if not destination.exists():
                    problems.append(f"{name}:{number}: {target}: no such file")
                    continue
                if anchor and destination.suffix == ".md" and anchor not in anchors(destination, cache):
                    problems.append(f"{name}:{number}: {target}: no heading with the anchor #{anchor}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
