#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The lint layer's check of docs/kubernetes/pktpath-daemonset.yaml
(scripts/lint.sh packaging): the YAML parses, and the pod is what the
manifest's comments and docs/kubernetes/README.md say: host network and PID
namespaces, not privileged, every capability dropped but those the systemd
unit's CapabilityBoundingSet keeps (packaging/pktpath.service), the scrape
annotations on the port /metrics is served on, a namespace that allows the
"privileged" PodSecurity level. Prints what differs; exit status 1 if any."""
import re
import sys

import yaml

MANIFEST = "docs/kubernetes/pktpath-daemonset.yaml"
UNIT = "packaging/pktpath.service"


def unit_caps():
    text = open(UNIT, encoding="utf-8").read()
    m = re.search(r"^CapabilityBoundingSet=(.*)$", text, re.M)
    return sorted(c.removeprefix("CAP_") for c in m.group(1).split())


def problems():
    docs = {d["kind"]: d for d in yaml.safe_load_all(open(MANIFEST, encoding="utf-8"))}
    ns, ds = docs["Namespace"], docs["DaemonSet"]
    pod = ds["spec"]["template"]
    spec = pod["spec"]
    ctr = spec["containers"][0]
    sc = ctr["securityContext"]
    args = ctr["args"]
    port = args[args.index("--metrics") + 1]
    ann = pod["metadata"]["annotations"]
    want = {
        "namespace label enforce": (ns["metadata"]["labels"].get(
            "pod-security.kubernetes.io/enforce"), "privileged"),
        "DaemonSet namespace": (ds["metadata"]["namespace"], ns["metadata"]["name"]),
        "hostNetwork": (spec.get("hostNetwork"), True),
        "hostPID": (spec.get("hostPID"), True),
        "privileged": (sc.get("privileged"), False),
        "allowPrivilegeEscalation": (sc.get("allowPrivilegeEscalation"), False),
        "capabilities dropped": (sc["capabilities"]["drop"], ["ALL"]),
        "capabilities added (the unit's)": (sorted(sc["capabilities"]["add"]), unit_caps()),
        "prometheus.io/scrape": (ann.get("prometheus.io/scrape"), "true"),
        "prometheus.io/port": (ann.get("prometheus.io/port"), port),
        "prometheus.io/path": (ann.get("prometheus.io/path"), "/metrics"),
        "containerPort": (str(ctr["ports"][0]["containerPort"]), port),
        "liveness probe path": (ctr["livenessProbe"]["httpGet"]["path"], "/healthz"),
    }
    out = [f"{k}: {got!r}, expected {exp!r}" for k, (got, exp) in want.items() if got != exp]
    mounts = {m["name"]: m["mountPath"] for m in ctr["volumeMounts"]}
    vols = {v["name"] for v in spec["volumes"]}
    out += [f"volume mount {n} has no volume" for n in mounts if n not in vols]
    for path in ("/sys/fs/bpf", "/run/netns", "/sys/kernel/tracing"):
        if path not in mounts.values():
            out.append(f"{path} is not mounted")
    return out


def main():
    try:
        found = problems()
    except (OSError, yaml.YAMLError, KeyError, IndexError, ValueError, TypeError) as e:
        found = [f"cannot read it: {e!r}"]
    for p in found:
        print(f"lint: {MANIFEST}: {p}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
