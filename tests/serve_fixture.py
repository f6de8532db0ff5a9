#!/usr/bin/env python3
"""Build a local artifact store for the serve tests out of one run's
artifacts, laid out as store.h says:

  {project}/{branch}/{commit}/{testbed}/{benchmark}/{file}
  {project}/{branch}/{commit}/{testbed}/manifest.json
  {project}/{branch}/latest/{testbed}.json

with each part made a key part (bytes outside [A-Za-z0-9._-+=,@] and '%'
become %XX; "", "." and ".." whole).  It holds a branch with a slash, a
hostile benchmark name, an older commit (for the order of commits), and
two symlinks that lead out of the store.

usage: serve_fixture.py RUN_DIR STORE_DIR OUTSIDE_DIR
Writes STORE_DIR/../fixture.json: what the tests fetch and expect.
"""
import json
import os
import shutil
import sys

FILES = ["profile.json.gz", "profile.pb.gz", "profile.folded",
         "flamegraph.svg", "summary.json"]
HOSTILE = "<img src=x onerror=alert(1)>"
SAFE = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
           b"0123456789._-+=,@")


def key_part(name):
    raw = name.encode()
    if name in ("", ".", ".."):
        return "".join("%%%02X" % c for c in raw)
    return "".join(chr(c) if c in SAFE else "%%%02X" % c for c in raw)


def store_run(run, store, project, branch, commit, testbed, benches, when):
    """One commit of one testbed: the run's artifacts under each benchmark,
    its manifest, and the branch's latest pointer."""
    tb_key = "/".join(key_part(p) for p in (project, branch, commit, testbed))
    tb_dir = os.path.join(store, *tb_key.split("/"))
    out = []
    for bench in benches:
        bdir = os.path.join(tb_dir, key_part(bench))
        os.makedirs(bdir)
        for f in FILES:
            shutil.copyfile(os.path.join(run, f), os.path.join(bdir, f))
            out.append({"project": project, "branch": branch,
                        "commit": commit, "testbed": testbed,
                        "benchmark": bench, "file": f,
                        "key": tb_key + "/" + key_part(bench) + "/" + f,
                        "path": os.path.join(bdir, f)})
    manifest = os.path.join(tb_dir, "manifest.json")
    shutil.copyfile(os.path.join(run, "manifest.json"), manifest)
    os.utime(manifest, (when, when))
    latest = os.path.join(store, key_part(project), key_part(branch),
                          "latest")
    os.makedirs(latest, exist_ok=True)
    with open(os.path.join(latest, key_part(testbed) + ".json"), "w") as f:
        json.dump({"commit": commit,
                   "manifest": tb_key + "/manifest.json"}, f)
    return out


def main():
    run, store, outside = sys.argv[1:4]
    os.makedirs(store)
    os.makedirs(outside, exist_ok=True)
    secret = os.path.join(outside, "secret.txt")
    with open(secret, "w") as f:
        f.write("SECRET-OUTSIDE-THE-STORE\n")
    files = []
    # main: an old commit first, then the newer one the pointer names
    files += store_run(run, store, "demo", "main", "0ld", "ci-x86",
                       ["bench"], 1000000000)
    files += store_run(run, store, "demo", "main", "c0ffee1", "ci-x86",
                       ["bench"], 2000000000)
    files += store_run(run, store, "demo", "feature/x", "abc123", "ci-x86",
                       [HOSTILE, "bench"], 1500000000)
    # ways out: a file and a directory symlinked from inside the store
    os.symlink(secret, os.path.join(store, "demo", "main", "leak.txt"))
    os.symlink(outside, os.path.join(store, "demo", "escape"))
    with open(os.path.join(os.path.dirname(store), "fixture.json"),
              "w") as f:
        json.dump({"files": files, "secret": secret, "hostile": HOSTILE},
                  f, indent=1)


if __name__ == "__main__":
    main()
