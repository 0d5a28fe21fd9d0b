#!/usr/bin/env python3
"""Builds a real, installable wheel (PEP 427 / PEP 491) from a source tree, with the standard library only.

The tests cannot reach PyPI and the host has no `wheel` package, so `pip wheel` cannot build with
setuptools here. This writes the same archive a build backend would: the package files, then
`<name>-<version>.dist-info/` with METADATA (core metadata 2.1), WHEEL, top_level.txt and RECORD
(sha256 of every file). pip installs the result like any wheel from an index. The output is
byte-for-byte reproducible: entries are sorted and every timestamp is 1980-01-01.

Usage:
  build_wheel.py --project DIR --out DIR            # reads DIR/pyproject.toml ([project] table)
  build_wheel.py --name N --version V --package-dir DIR --out DIR [--requires SPEC]... [--tag TAG]
                 [--requires-python SPEC] [--summary TEXT] [--extra-file ARCHIVE_PATH=SOURCE]...

With --project, the packages are found under DIR/src (or DIR itself): every directory holding an
__init__.py at the top level. Prints the path of the wheel written.
"""
import argparse
import base64
import hashlib
import os
import re
import sys
import zipfile

EPOCH = (1980, 1, 1, 0, 0, 0)


def normalize_dist_name(name):
    """The distribution name as it appears in file names (PEP 427 escaping)."""
    return re.sub(r"[-_.]+", "_", name)


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def read_pyproject(project_dir):
    try:
        import tomllib  # Python 3.11+
    except ImportError:  # pragma: no cover - older Pythons
        sys.exit("build_wheel.py: --project needs Python 3.11+ (tomllib); pass --name/--version instead")
    with open(os.path.join(project_dir, "pyproject.toml"), "rb") as f:
        data = tomllib.load(f)
    project = data.get("project") or {}
    for key in ("name", "version"):
        if key not in project:
            sys.exit("build_wheel.py: [project].%s is missing in %s/pyproject.toml" % (key, project_dir))
    return project


def package_files(root):
    """(archive path, source path) of every file of the top-level packages under root."""
    files = []
    for entry in sorted(os.listdir(root)):
        top = os.path.join(root, entry)
        if entry.endswith(".py") and os.path.isfile(top):
            files.append((entry, top))
            continue
        if not os.path.isdir(top) or not os.path.isfile(os.path.join(top, "__init__.py")):
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".pyc", ".pyo")):
                    continue
                src = os.path.join(dirpath, name)
                files.append((os.path.relpath(src, root).replace(os.sep, "/"), src))
    return files


def build(name, version, files, out_dir, requires=(), tag="py3-none-any", requires_python=None, summary=None,
          purelib=True):
    dist = normalize_dist_name(name)
    info = "%s-%s.dist-info" % (dist, version)
    metadata = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version]
    if summary:
        metadata.append("Summary: " + summary)
    if requires_python:
        metadata.append("Requires-Python: " + requires_python)
    metadata += ["Requires-Dist: " + r for r in requires]
    tags = []
    py, abi, plats = tag.split("-")
    for p in py.split("."):
        for a in abi.split("."):
            for pl in plats.split("."):
                tags.append("%s-%s-%s" % (p, a, pl))
    wheel = ["Wheel-Version: 1.0", "Generator: kube-inference-constructs test build_wheel.py",
             "Root-Is-Purelib: " + ("true" if purelib else "false")] + ["Tag: " + t for t in tags]
    top_level = sorted({path.split("/")[0].rsplit(".py", 1)[0] for path, _ in files if not path.startswith(info)})

    entries = []
    for path, src in files:
        with open(src, "rb") as f:
            entries.append((path, f.read()))
    entries.append((info + "/METADATA", ("\n".join(metadata) + "\n").encode("utf-8")))
    entries.append((info + "/WHEEL", ("\n".join(wheel) + "\n").encode("utf-8")))
    entries.append((info + "/top_level.txt", ("\n".join(top_level) + "\n").encode("utf-8")))
    record = ["%s,%s,%d" % (path, record_hash(data), len(data)) for path, data in entries]
    record.append(info + "/RECORD,,")
    entries.append((info + "/RECORD", ("\n".join(record) + "\n").encode("utf-8")))

    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, "%s-%s-%s.whl" % (dist, version, tag))
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for path, data in entries:
            zi = zipfile.ZipInfo(path, date_time=EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return target


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project")
    ap.add_argument("--name")
    ap.add_argument("--version")
    ap.add_argument("--package-dir")
    ap.add_argument("--requires", action="append", default=[])
    ap.add_argument("--requires-python")
    ap.add_argument("--summary")
    ap.add_argument("--tag", default="py3-none-any")
    ap.add_argument("--extra-file", action="append", default=[],
                    help="ARCHIVE_PATH=SOURCE: add a file as is (e.g. a prebuilt .so)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    if args.project:
        project = read_pyproject(args.project)
        name, version = project["name"], project["version"]
        requires = list(project.get("dependencies") or [])
        requires_python = project.get("requires-python")
        summary = project.get("description")
        src = os.path.join(args.project, "src")
        root = src if os.path.isdir(src) else args.project
    else:
        if not (args.name and args.version and args.package_dir):
            ap.error("give --project, or --name, --version and --package-dir")
        name, version, root = args.name, args.version, args.package_dir
        requires, requires_python, summary = [], None, None
    requires += args.requires
    requires_python = args.requires_python or requires_python
    summary = args.summary or summary

    files = package_files(root)
    for spec in args.extra_file:
        path, _, src = spec.partition("=")
        files.append((path, src))
    if not files:
        sys.exit("build_wheel.py: no packages found under " + root)
    purelib = args.tag.endswith("-any") and not any(p.endswith(".so") for p, _ in files)
    print(build(name, version, files, args.out, requires, args.tag, requires_python, summary, purelib))


if __name__ == "__main__":
    main(sys.argv[1:])
