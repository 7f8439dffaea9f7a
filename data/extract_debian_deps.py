#!/usr/bin/python3
"""Extract the Depends graph of Debian bookworm main/amd64 from the apt Packages index.

Usage: /usr/bin/python3 data/extract_debian_deps.py [PACKAGES_FILE] [OUT.gz]
Defaults: /var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4
(decompressed with `lz4cat` when the name ends in .lz4) -> data/debian-bookworm-depends.txt.gz

Rules (also in data/README.md):
  * nodes: every binary package name in the index (one node per name, sorted by name);
  * edges: one undirected edge package -> dependency for every comma-separated clause of the
    package's Depends field (Pre-Depends, Recommends, Suggests are ignored);
  * version constraints "(>= 1.2)", architecture qualifiers ":any" / ":amd64" and build
    profiles are dropped;
  * alternatives "a | b | c": the first alternative that resolves (as a real package, else as a
    virtual package) is taken, the order apt's resolver tries first;
  * virtual packages (names only in Provides): resolved to the provider whose name sorts first;
  * unresolvable clauses (package not in main) and self-dependencies are dropped, duplicate
    edges merged.
"""
import gzip, os, re, subprocess, sys

src = sys.argv[1] if len(sys.argv) > 1 else \
    "/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4"
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__),
                                                         "debian-bookworm-depends.txt.gz")
if src.endswith(".lz4"):
    text = subprocess.run(["lz4cat", src], check=True, capture_output=True).stdout.decode("utf-8", "replace")
else:
    text = open(src, encoding="utf-8", errors="replace").read()

release = os.path.join(os.path.dirname(src), "deb.debian.org_debian_dists_bookworm_InRelease")
date = "unknown"
if os.path.exists(release):
    for line in open(release, encoding="utf-8", errors="replace"):
        if line.startswith("Date:"):
            date = line[5:].strip()
            break

depends = {}
provides = {}
for stanza in text.split("\n\n"):
    fields = {}
    key = None
    for line in stanza.split("\n"):
        if not line:
            continue
        if line[0] in " \t":
            if key:
                fields[key] += " " + line.strip()
            continue
        key, _, val = line.partition(":")
        fields[key] = val.strip()
    name = fields.get("Package")
    if not name:
        continue
    depends.setdefault(name, []).append(fields.get("Depends", ""))
    for p in fields.get("Provides", "").split(","):
        p = re.sub(r"\(.*?\)", "", p).strip()
        if p:
            provides.setdefault(p, set()).add(name)

names = sorted(depends)
index = {n: i for i, n in enumerate(names)}


def bare(alt):
    alt = re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", alt).strip()
    return alt.split(":")[0].strip()


edges = set()
stats = dict(clauses=0, alternatives=0, virtual=0, unresolved=0)
for name in names:
    u = index[name]
    for dep in depends[name][:1]:  # one stanza per name in bookworm main; first if repeated
        for clause in dep.split(","):
            clause = clause.strip()
            if not clause:
                continue
            stats["clauses"] += 1
            alts = [bare(a) for a in clause.split("|")]
            if len(alts) > 1:
                stats["alternatives"] += 1
            target = None
            for a in alts:
                if a in index:
                    target = index[a]
                    break
                if a in provides:
                    target = index[sorted(provides[a])[0]]
                    stats["virtual"] += 1
                    break
            if target is None:
                stats["unresolved"] += 1
                continue
            if target != u:
                edges.add((min(u, target), max(u, target)))

edges = sorted(edges)
with gzip.GzipFile(out, "wb", mtime=0) as f:
    w = lambda s: f.write(s.encode())
    w("# posenc data: Debian bookworm main/amd64 package dependency graph (Depends fields)\n")
    w("# source: %s\n" % os.path.basename(src))
    w("# index date (InRelease Date:): %s\n" % date)
    w("# rules: see data/README.md; extracted by data/extract_debian_deps.py\n")
    w("# stats: %s\n" % " ".join("%s=%d" % kv for kv in stats.items()))
    w("nodes %d\n" % len(names))
    for n in names:
        w(n + "\n")
    w("edges %d\n" % len(edges))
    for u, v in edges:
        w("%d %d\n" % (u, v))
print("nodes", len(names), "edges", len(edges), stats, "date", date, file=sys.stderr)
