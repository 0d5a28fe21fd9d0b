# Writes <EXTERNAL_PROVIDERS_DIR>/server-packages.json: the distributions and top-level modules the
# server (ogx, or llama-stack) imports from its own environment, and the values of the PEP 508 environment
# markers for its Python. Run by inspect-distribution.sh with the interpreter of the server's console
# script (`ogx`, or `llama`: the first word of SERVER_COMMAND), with the
# server container's PYTHONPATH minus the shared provider packages directory, so it sees exactly what
# the server would import if no provider were installed.
#
# The file (read by install-provider.py):
#   {"image": <distribution image>, "python": "3.12.1", "implementation": "cpython",
#    "executable": "...", "platform": "linux-x86_64",
#    "markers": {<PEP 508 marker name>: <value for the server's Python>},
#    "packages": {<normalized name>: {"name": <Name>, "version": <Version>}},
#    "modules": {<top-level import name>: <normalized distribution name, or null (standard library,
#                builtin or a module no distribution records)>}}
# Standard library only (Python >= 3.8); written whole (temporary file, then rename).
import csv
import importlib.metadata
import json
import os
import pkgutil
import platform
import re
import sys
import sysconfig

SHARED = os.environ["EXTERNAL_PROVIDERS_DIR"]
PACKAGES = os.path.join(SHARED, "python-packages")
OUTPUT = os.path.join(SHARED, "server-packages.json")


def normalize(name):
    """PEP 503 normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def server_path():
    """sys.path as the server has it, without the provider packages and without this script's directory."""
    here = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
    skip = {os.path.realpath(PACKAGES), here}
    return [p for p in sys.path[1:] if os.path.realpath(p or os.curdir) not in skip]


def marker_environment():
    """The values of the PEP 508 environment markers, computed as packaging.markers.default_environment()."""
    impl = sys.implementation
    info = impl.version
    version = "%d.%d.%d" % (info.major, info.minor, info.micro)
    if info.releaselevel != "final":
        version += info.releaselevel[0] + str(info.serial)
    return {
        "implementation_name": impl.name,
        "implementation_version": version,
        "os_name": os.name,
        "platform_machine": platform.machine(),
        "platform_release": platform.release(),
        "platform_system": platform.system(),
        "platform_version": platform.version(),
        "python_full_version": platform.python_version(),
        "platform_python_implementation": platform.python_implementation(),
        "python_version": ".".join(platform.python_version_tuple()[:2]),
        "sys_platform": sys.platform,
    }


def top_level_names(dist):
    """Top-level import names a distribution installs, from its RECORD (or top_level.txt).

    RECORD is read as CSV text rather than through `dist.files`: building a path object for each of the
    tens of thousands of files torch and the CUDA libraries record made this step take seconds.
    """
    names = set()
    for row in csv.reader((dist.read_text("RECORD") or "").splitlines()):
        parts = row[0].replace("\\", "/").split("/") if row else [""]
        first = parts[0]
        if first in ("", "..", "__pycache__") or first.endswith((".dist-info", ".egg-info", ".data", ".pth")):
            continue
        if len(parts) > 1:
            names.add(first)
        elif first.endswith((".py", ".so", ".pyd")):
            names.add(first.split(".")[0])
    if not names:
        names.update(n.strip() for n in (dist.read_text("top_level.txt") or "").split() if n.strip())
    return names


def main():
    path = server_path()
    packages = {}
    owner = {}
    for dist in importlib.metadata.distributions(path=path):
        name = dist.metadata["Name"]
        if not name:
            continue
        key = normalize(name)
        if key in packages:
            continue  # shadowed by an earlier entry of the path, as for imports
        packages[key] = {"name": name, "version": dist.version}
        for top in top_level_names(dist):
            owner.setdefault(top, key)
    modules = {name: None for name in sys.builtin_module_names}
    for info in pkgutil.iter_modules(path):
        modules.setdefault(info.name, owner.get(info.name))
    report = {
        "image": os.environ.get("DISTRIBUTION_IMAGE", ""),
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "executable": sys.executable,
        "platform": sysconfig.get_platform(),
        "markers": marker_environment(),
        "packages": dict(sorted(packages.items())),
        "modules": dict(sorted(modules.items())),
    }
    pending = OUTPUT + ".pending"
    with open(pending, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(pending, OUTPUT)
    print("Recorded %d distribution(s) and %d top-level module(s) of the server's Python %s (%s) in %s" % (
        len(packages), len(modules), report["python"], sys.executable, OUTPUT))


main()
