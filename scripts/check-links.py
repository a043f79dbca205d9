#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The lint layer's check of the Markdown files' relative links
(scripts/lint.sh links): each names a file or directory that exists, and a
#fragment names one of that Markdown file's headings, as GitHub makes its
anchors. Links to web pages (scheme:) are not followed.

    scripts/check-links.py FILE.md...

Prints one line per bad link, "FILE:LINE: ...", and exits 1 if there was one.
"""
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation but - and _
    dropped, each space a dash."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def lines_outside_code(path):
    """(number, line) of PATH outside fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line


def anchors(path):
    found = set()
    for _, line in lines_outside_code(path):
        m = re.match(r"^#{1,6} (.*)$", line)
        if m:
            a = anchor(m.group(1))
            n = 1
            name = a
            while name in found:  # GitHub numbers repeats: a, a-1, a-2
                name = f"{a}-{n}"
                n += 1
            found.add(name)
    return found


def check(path):
    bad = []
    for n, line in lines_outside_code(path):
        # Inline code is not a link.
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            file, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                bad.append(f"{path}:{n}: {target}: no {dest}")
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                bad.append(f"{path}:{n}: {target}: no heading #{frag} in {dest}")
    return bad


def main():
    bad = [b for p in sys.argv[1:] for b in check(p)]
    for b in bad:
        print(f"lint: link: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
