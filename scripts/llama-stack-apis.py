#!/usr/bin/env python3
"""Prints, as JSON, what one installed llama-stack (or ogx) release accepts in a config: the values of
its `Api` enum, the APIs `providable_apis()` returns, the config file its distributions ship, and the
distributions it ships a config of.
The release table of src/run-config/releases.ts is read from this output.

Usage (a throw-away venv per release; nothing is imported, the sources are only parsed):
  python3.12 -m venv /tmp/ls-0.7.3
  /tmp/ls-0.7.3/bin/pip install --no-deps llama-stack==0.7.3 llama-stack-api==0.7.3   # 0.4 onwards
  python3 scripts/llama-stack-apis.py /tmp/ls-0.7.3/lib/python3.12/site-packages
For 0.8, install `ogx==0.8.0 ogx-api==0.8.0` instead.
"""
import ast
import glob
import json
import os
import sys


def parse(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


def api_enum(root, package):
    """(file, {member name: value}) of the `Api` enum, wherever this release keeps it."""
    for rel in (package + "_api/datatypes.py", package + "/apis/datatypes.py", package + "/providers/datatypes.py"):
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            continue
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.ClassDef) and node.name == "Api":
                members = {}
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
                        members[stmt.targets[0].id] = stmt.value.value
                return rel, members
    raise SystemExit("no Api enum found under " + root)


def excluded_apis(path):
    """Member names providable_apis() leaves out: the routing tables and the internal APIs."""
    routing, internal = [], set()
    tree = parse(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "INTERNAL_APIS":
            internal = {e.attr for e in node.value.elts}
        if isinstance(node, ast.FunctionDef) and node.name == "builtin_automatically_routed_apis":
            routing += [k.value.attr for k in ast.walk(node) if isinstance(k, ast.keyword) and k.arg == "routing_table_api"]
        if isinstance(node, ast.FunctionDef) and node.name == "providable_apis":
            # Before INTERNAL_APIS existed: `api != Api.inspect and api != Api.providers`.
            for cmp in ast.walk(node):
                if isinstance(cmp, ast.Compare) and isinstance(cmp.ops[0], ast.NotEq):
                    internal.add(cmp.comparators[0].attr)
    return routing, internal


def main(root):
    package = "ogx" if os.path.isdir(os.path.join(root, "ogx")) else "llama_stack"
    enum_file, members = api_enum(root, package)
    dist_file = next(p for p in (package + "/core/distribution.py", package + "/distribution/distribution.py")
                     if os.path.exists(os.path.join(root, p)))
    routing, internal = excluded_apis(os.path.join(root, dist_file))
    starter = glob.glob(os.path.join(root, package, "distributions", "starter", "*.yaml"))
    json.dump({
        "package": package,
        "enumFile": enum_file,
        "distributionFile": dist_file,
        "apis": list(members.values()),
        "routingTables": [members[m] for m in routing],
        "internal": sorted(members[m] for m in internal),
        "providerApis": [v for m, v in members.items() if m not in routing and m not in internal],
        "starterFiles": sorted(os.path.basename(p) for p in starter),
        "distributions": sorted({os.path.basename(os.path.dirname(p))
                                for p in glob.glob(os.path.join(root, package, "distributions", "*", "*.yaml"))
                                if os.path.basename(p) in ("config.yaml", "run.yaml")}),
    }, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
