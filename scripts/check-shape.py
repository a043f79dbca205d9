#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The code's shape, as the lint checks it (scripts/lint.sh shape):

- the loader's functions: at most MAX_LONG over LONG lines, none over
  LONGEST (a function counts from its signature's first line to its closing
  brace, as scripts/func-lengths.sh prints them);
- the kernel side in rooms: every file of bpf/ opens, after its SPDX line,
  with a comment that says what it decides, and none is over ROOM_LINES.

Prints what is out of shape; exit status 1 if anything is.
"""
import pathlib
import re
import sys

LONG, MAX_LONG, LONGEST = 40, 10, 50
ROOM_LINES = 800
ROOT = pathlib.Path(__file__).resolve().parent.parent

# A definition's signature starts at column 0 with a name followed by "(";
# its body opens with "{" alone at column 0 and closes with "}" there
# (kernel style, which clang-format keeps).
SIGNATURE = re.compile(r"^(?:[A-Za-z_][^;=#]*[\s*])?([A-Za-z_]\w*)\(")


def functions(path):
    """(name, first line, length) of each function defined in PATH."""
    sig = name = None
    in_body = False
    for i, line in enumerate(path.read_text().split("\n")):
        if in_body:
            if line.startswith("}"):
                yield name, sig + 1, i - sig + 1
                in_body, sig = False, None
        elif line.startswith("{") and sig is not None:
            in_body = True
        elif SIGNATURE.match(line):
            sig, name = i, SIGNATURE.match(line).group(1)
        if not in_body and line.rstrip().endswith(";"):
            sig = None


def check_functions():
    long_ones, bad = [], []
    for path in sorted((ROOT / "loader").rglob("*.c")):
        for name, first, n in functions(path):
            if n > LONG:
                long_ones.append((n, name, f"{path.relative_to(ROOT)}:{first}"))
    long_ones.sort()
    over = [f for f in long_ones if f[0] > LONGEST]
    for n, name, where in over:
        bad.append(f"shape: {name} ({where}) is {n} lines: at most {LONGEST}")
    if len(long_ones) > MAX_LONG:
        bad.append(f"shape: {len(long_ones)} loader functions over {LONG} lines, at most "
                   f"{MAX_LONG}: " + ", ".join(f"{name} {n}" for n, name, _ in long_ones))
    return bad


def check_rooms():
    bad = []
    for path in sorted((ROOT / "bpf").glob("*.[ch]")):
        lines = path.read_text().split("\n")
        rel = path.relative_to(ROOT)
        if len(lines) > ROOM_LINES:
            bad.append(f"shape: {rel} is {len(lines)} lines: at most {ROOM_LINES}, a room each")
        if len(lines) < 2 or "SPDX" not in lines[0] or not lines[1].startswith("/*"):
            bad.append(f"shape: {rel} does not open with a comment that says what it decides")
    return bad


def main():
    bad = check_functions() + check_rooms()
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
