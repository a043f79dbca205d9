#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The folders of loader/ are layers: #includes point down, never up.

    scripts/check-layers.py [--graph] [ROOT]

Reads the #include "..." lines of every C file and header under ROOT/loader
(default: the repository) and fails (exit 1) on:
  - an include from a folder to a folder of a higher layer, or of another
    folder of the same layer (each folder's includes point one way only, so
    no cycle between folders can form);
  - a folder of loader/ that LAYERS below does not place;
  - CONTRIBUTING.md's layout listing loader/'s folders in another order;
  - a project header included by its bare name: it is named from loader/,
    with its folder ("probes/plan.h"), in loader/, tests/ and bench/ alike
    (the one include directory is loader/, with include/ for the ABI).
--graph prints the folder graph (from -> to: includes) and the back-edges.
Against a tree whose includes name no folder (the layout before the
layers), a bare name is resolved by searching loader/ for it, so the graph
of an older tree can be measured too.
"""
import os
import re
import sys
from collections import Counter

# The layers, bottom first; a folder may include its own headers and those
# of the layers below it. CONTRIBUTING.md's layout section says the same.
LAYERS = [
    ["base"],  # the logger, growable arrays, formatting, safe files, compat
    ["kernel", "names"],  # what this kernel offers; netns and container names
    ["bpfobj"],  # what the classifier and the probes share: the maps, splicing
    ["filter", "probes"],  # the filter and classifier; the probe list, plan, attach
    ["paths", "tc"],  # path assembly, packet decoding; the classifier on interfaces
    ["output"],  # text, JSON, summaries, drop hints, exports
    ["metrics"],  # --metrics: the series, their ranking and rendering, the HTTP server
    ["report"],  # saved --json files read back and joined
    ["cmd"],  # main, the CLI, the trace loop, --check, pktpath report
]
RANK = {folder: i for i, layer in enumerate(LAYERS) for folder in layer}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(top):
    for base, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.join(base, name)


def folder(rel):
    """A source's folder, from its loader/-relative path. In an older tree,
    filter/ sat beside loader/ and main.c, cli.c at loader/'s top: "cmd"."""
    parts = rel.split("/")
    if parts[0] == "..":
        return parts[1]
    return parts[0] if len(parts) > 1 else "cmd"


def cycles(edges):
    """The groups of folders that reach each other through includes."""
    reach = {}
    for frm, to in edges:
        reach.setdefault(frm, set()).add(to)
    changed = True
    while changed:
        changed = False
        for frm, tos in reach.items():
            more = set().union(*(reach.get(t, set()) for t in tos)) - tos
            if more:
                tos |= more
                changed = True
    groups = {tuple(sorted(n for n in reach if n in reach[f] and f in reach[n]))
              for f in reach if f in reach[f]}
    return sorted(groups)


def main(argv):
    graph = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    loader = os.path.join(root, "loader")
    tops = ["loader"] + (["filter"] if os.path.isdir(os.path.join(root, "filter")) else [])
    by_name = {}
    for top in tops:
        for path in sources(os.path.join(root, top)):
            by_name.setdefault(os.path.basename(path), []).append(os.path.relpath(path, loader))
    errors, edges = [], Counter()

    def resolve(rel, name):
        """loader/-relative path of the header, and whether it names its folder;
        None for a header from outside (include/, the build's, the tests' own)."""
        if "/" in name and os.path.isfile(os.path.join(loader, name)):
            return name, True
        found = by_name.get(os.path.basename(name), [])
        if len(found) > 1:
            errors.append(f'{rel}: #include "{name}": which one? {" ".join(found)}')
        return (found[0], False) if len(found) == 1 else (None, False)

    for top in tops + ["tests/unit", "tests/fuzz", "bench"]:
        for src in sources(os.path.join(root, top)):
            rel = os.path.relpath(src, root)
            with open(src, encoding="utf-8") as f:
                names = INCLUDE.findall(f.read())
            for name in names:
                header, named = resolve(rel, name)
                if header is None:
                    continue
                if not named:
                    errors.append(f'{rel}: #include "{name}": name its folder ("{header}")')
                if top not in tops:
                    continue
                frm, to = folder(os.path.relpath(src, loader)), folder(header)
                if frm == to:
                    continue
                edges[(frm, to)] += 1
                if frm in RANK and to in RANK and RANK[to] >= RANK[frm]:
                    errors.append(f'{rel}: #include "{name}": {frm} may not include {to}'
                                  f" ({to} is not in a layer below {frm})")
    folders = {folder(os.path.relpath(p, loader))
               for top in tops for p in sources(os.path.join(root, top))}
    for name in sorted(folders - RANK.keys()):
        errors.append(f"loader/{name}: not in a layer (LAYERS, scripts/check-layers.py)")
    layout = os.path.join(root, "CONTRIBUTING.md")
    if os.path.isfile(layout) and os.path.isdir(os.path.join(loader, "base")):
        with open(layout, encoding="utf-8") as f:
            said = re.findall(r"^      (\w+)/ ", f.read(), re.M)
        order = [name for layer in LAYERS for name in layer]
        if said != order:
            errors.append(f"CONTRIBUTING.md: the layout lists {' '.join(said)}; "
                          f"the layers, bottom first, are {' '.join(order)}")
    for name in sorted(os.listdir(loader)):
        if name.endswith((".c", ".h")):
            errors.append(f"loader/{name}: every source lives in a layer's folder")
    back = {e: n for e, n in edges.items()
            if e[0] in RANK and e[1] in RANK and RANK[e[1]] >= RANK[e[0]]}
    if graph:
        for (frm, to), n in sorted(edges.items()):
            mark = "  BACK" if (frm, to) in back else ""
            print(f"{frm} -> {to}: {n}{mark}")
        print(f"{len(edges)} folder edges, {len(back)} back-edges "
              f"({sum(back.values())} includes)")
        for group in cycles(edges):
            print("cycle through: " + " ".join(group))
    for e in errors:
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} problems")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
