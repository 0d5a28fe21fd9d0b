# The rules install-provider.py applies to a provider's staged distributions before any of them reaches
# the shared packages directory: valid metadata, which packages the server already serves, which
# requirements the server's or earlier providers' versions break, and which files or import packages
# would collide. No side effects: install-provider.py reads and moves, this module only decides.
#
# Requirements are evaluated with pip's vendored `packaging` (the provider image has pip: it installs the
# wheels) and with the environment markers of the SERVER's Python (recorded by inspect-distribution.py),
# because the server's interpreter is the one that imports the packages. Python >= 3.8.
import os
import re
from importlib import metadata as importlib_metadata

from pip._vendor.packaging.requirements import InvalidRequirement, Requirement
from pip._vendor.packaging.version import InvalidVersion, Version

# PEP 508 project names.
PROJECT_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
# What the construct renders (a provider's key: a DNS-1123 label derived from its id, the id itself when
# it is one; an image reference without whitespace or shell/YAML control characters). A hand-edited
# manifest may carry anything, so the pod checks again.
PROVIDER_KEY = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
IMAGE_REF = r"[A-Za-z0-9][A-Za-z0-9._\-/:@+]*"
# One line of installed-packages.txt: a package a provider installed, or (with ` served-by=server`) a
# dependency of a provider that the server's own copy serves.
MANIFEST_LINE = re.compile(
    r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)==(?P<version>[A-Za-z0-9.+!_-]+)"
    r" provider=(?P<provider>%s) image=(?P<image>%s)(?P<served> served-by=server)?$" % (PROVIDER_KEY, IMAGE_REF))
# Modules Python's `site` imports at every start-up from anywhere on the path: a provider shipping one
# would run its code inside the server before anything else.
STARTUP_HOOKS = ("sitecustomize", "usercustomize")


def valid_provider_key(value):
    return re.match("^%s$" % PROVIDER_KEY, value or "") is not None


def valid_image(value):
    return re.match("^%s$" % IMAGE_REF, value or "") is not None


def normalize(name):
    """PEP 503 normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def manifest_entries(text):
    """The well-formed lines of installed-packages.txt as dicts (name, version, provider, image, served)."""
    entries = []
    for line in text.splitlines():
        m = MANIFEST_LINE.match(line)
        if m:
            entry = m.groupdict()
            entry["served"] = bool(entry["served"])
            entries.append(entry)
    return entries


def manifest_line(name, version, provider_key, image, served=False):
    """One line of installed-packages.txt; refuses values that would not read back as exactly this line.

    The provider is named by its key, which is its id whenever the id is a DNS-1123 label: an id such
    as `trustyai_fms` or one with spaces could not be told apart from the rest of the line.
    """
    line = "%s==%s provider=%s image=%s%s" % (name, version, provider_key, image, " served-by=server" if served else "")
    if [(e["name"], e["version"], e["provider"], e["image"], e["served"]) for e in manifest_entries(line)] != [
            (name, version, provider_key, image, served)]:
        raise ValueError("refusing to write a malformed installed-packages.txt line: %r" % line)
    return line + "\n"


class Dist:
    """A distribution installed in a directory (a `*.dist-info` entry), with what the rules need."""

    def __init__(self, root, info_dir):
        dist = importlib_metadata.Distribution.at(os.path.join(root, info_dir))
        self.info_dir = info_dir
        self.name = dist.metadata["Name"] or ""
        self.version = dist.metadata["Version"] or ""
        self.requires = list(dist.requires or [])
        # RECORD paths relative to the directory; `pip install --target` records scripts as ../../bin/…,
        # which are not installed into the shared directory.
        self.files = sorted({str(f).replace("\\", "/") for f in dist.files or []
                             if not str(f).startswith(("../", "/", "..\\"))})

    @property
    def key(self):
        return normalize(self.name)

    def label(self):
        return "%s %s" % (self.name, self.version)

    def top_entries(self):
        """The top-level names of the directory that belong to this distribution (its dist-info included)."""
        entries = {self.info_dir}
        for f in self.files:
            first = f.split("/")[0]
            if first and first != "__pycache__":
                entries.add(first)
        return entries

    def import_names(self):
        """Top-level import name -> True for a regular package or module, False for a namespace package (PEP 420)."""
        names = {}
        files = set(self.files)
        for f in self.files:
            parts = f.split("/")
            first = parts[0]
            if first in ("", "__pycache__") or first.endswith((".dist-info", ".data")):
                continue
            if len(parts) == 1:
                if first.endswith((".py", ".pyc", ".so", ".pyd")):
                    names[first.split(".")[0]] = True
                continue
            regular = any(("%s/__init__%s" % (first, s)) in files for s in (".py", ".pyc")) or any(
                g.startswith(first + "/__init__.") and g.endswith((".so", ".pyd")) for g in files)
            names[first] = names.get(first, False) or regular
        return names


def metadata_problems(dists):
    """Why the Name or Version of staged distributions cannot be recorded, one line each."""
    problems = []
    for d in dists:
        if not PROJECT_NAME.match(d.name):
            problems.append("%s: Name %r is not a valid project name (letters, digits, '.', '-' and '_', starting "
                            "and ending with a letter or digit)" % (d.info_dir, d.name))
        valid = bool(d.version) and not re.search(r"\s", d.version)
        if valid:
            try:
                Version(d.version)
            except InvalidVersion:
                valid = False
        if not valid:
            problems.append("%s: Version %r is not a valid version (PEP 440, e.g. 1.2.0)" % (d.info_dir, d.version))
    return problems


def applicable_requirements(dists, markers):
    """(dist, Requirement) for every requirement of `dists` that applies to the server's Python.

    Markers are evaluated with the server's marker values (None: this Python's); extras a requirement
    asks for (`pkg[extra]`) make the requirements of that extra apply too.
    """
    pairs = []
    seen = set()
    queue = [(key, "") for key in sorted(dists)]
    while queue:
        key, extra = queue.pop(0)
        if (key, extra) in seen:
            continue
        seen.add((key, extra))
        for text in dists[key].requires:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue  # pip refused such a wheel already
            if extra and (req.marker is None or "extra" not in str(req.marker)):
                continue  # applies without the extra: counted once, with ""
            if req.marker is not None and not any(
                    req.marker.evaluate(dict(markers or {}, extra=e)) for e in {extra, normalize(extra)}):
                continue
            pairs.append((dists[key], req))
            dep = normalize(req.name)
            if dep in dists:
                queue.extend((dep, e) for e in sorted(req.extras))
    return pairs


def satisfies(req, version):
    return req.specifier.contains(version, prereleases=True)


class Plan:
    """What to do with a provider's staged distributions."""

    def __init__(self):
        self.served = []         # staged keys whose server copy serves the provider (not installed)
        self.install = []        # staged keys to move into the shared directory
        self.reused = []         # staged keys an earlier provider installed already
        self.unneeded = []       # staged keys only dists the server serves require (not installed)
        self.server_conflicts = []
        self.provider_conflicts = []
        self.missing = []


def plan_install(staged, existing, server, owners):
    """Decides, for a provider's staged dists, what is served by the server, installed, reused, or in conflict.

    staged, existing: key -> Dist (the provider's staging directory, the shared packages directory).
    server: the parsed server-packages.json, or None when the distribution was not inspected.
    owners: key -> "provider 'x' (image y)" of the packages earlier providers installed.
    """
    plan = Plan()
    server = server or {}
    packages = server.get("packages", {})
    markers = server.get("markers")
    where = "the server (distribution image %s, Python %s)" % (server.get("image") or "?", server.get("python", "?"))
    plan.served = [k for k in sorted(staged) if k in packages]
    kept = needed({k: d for k, d in staged.items() if k not in packages}, staged, markers)
    plan.unneeded = [k for k in sorted(staged) if k not in packages and k not in kept]

    # Only what gets installed constrains the server's copies: a dist the server serves brings the
    # server's own, consistent dependencies, so the requirements of the provider's copy do not count.
    for dist, req in applicable_requirements(kept, markers):
        dep = normalize(req.name)
        if dep in packages:
            have = packages[dep]["version"]
            if not satisfies(req, have):
                shipped = " (the provider image ships %s)" % staged[dep].label() if dep in staged else ""
                plan.server_conflicts.append("%s requires %s%s, but %s has %s %s" % (
                    dist.label(), req, shipped, where, packages[dep]["name"], have))
        elif dep in existing and dep in staged and staged[dep].version != existing[dep].version:
            have = existing[dep].version
            if not satisfies(req, have):
                plan.provider_conflicts.append("%s requires %s, but %s %s is already installed by %s" % (
                    dist.label(), req, existing[dep].name, have, owners.get(dep, "an earlier provider")))
        elif markers and dep not in staged and dep not in existing:
            # pip resolved with the provider image's Python; a marker can make more apply to the server's.
            plan.missing.append("%s requires %s, which applies to the server's Python %s, but the provider image "
                                "has no wheel for it" % (dist.label(), req, server.get("python", "?")))

    # A staged dist the server has and nothing names as a requirement (under any marker or extra) is a
    # wheel the provider image ships for its own sake (the provider itself, typically): the server's
    # copy serves it only at the very same version.
    required = {normalize(re.split(r"[\s\[(;<>=!~]", text.strip(), 1)[0]) for d in staged.values() for text in d.requires}
    for key in plan.served:
        have = packages[key]["version"]
        if key not in required and not same_version(have, staged[key].version):
            plan.server_conflicts.append("the provider image ships %s, but %s has %s %s; a provider image cannot "
                                         "replace the server's packages" % (staged[key].label(), where, packages[key]["name"], have))

    plan.install = [k for k in sorted(kept) if k not in existing]
    plan.reused = [k for k in sorted(kept) if k in existing]
    return plan


def needed(own, staged, markers):
    """The dists of `own` (staged, not served by the server) the provider needs.

    The provider image's closure was resolved with its own copies of everything; once the server's copy
    serves a dist, what only that dist required (its dependencies, such as the dozens llama-stack pulls
    in) is not needed: the server has its own. Needed is what the provider's top-level dists (those no
    staged dist requires: the provider itself, typically) reach through the requirements of dists that
    are installed. Without such top-level dists (a requirement cycle) everything is kept.
    """
    named = {normalize(re.split(r"[\s\[(;<>=!~]", text.strip(), 1)[0]) for d in staged.values() for text in d.requires}
    roots = [k for k in sorted(own) if k not in named]
    if not roots:
        return dict(own)
    edges = {}
    for dist, req in applicable_requirements(own, markers):
        edges.setdefault(dist.key, set()).add(normalize(req.name))
    reached = set()
    stack = roots
    while stack:
        key = stack.pop()
        if key in reached or key not in own:
            continue
        reached.add(key)
        stack.extend(sorted(edges.get(key, ())))
    return {k: d for k, d in own.items() if k in reached}


def same_version(a, b):
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def collisions(new, target_dists, owners, server):
    """Why the new dists cannot be moved into the shared directory: files or import packages someone else has.

    new: the Dists to install; target_dists: key -> Dist already in the shared directory; owners: key ->
    "provider 'x' (image y)"; server: server-packages.json or None.
    """
    problems = []
    modules = (server or {}).get("modules", {})
    packages = (server or {}).get("packages", {})
    for i, a in enumerate(new):
        for b in new[i + 1:]:
            problems += ["%s and %s (both in this provider image) install %s" % (a.label(), b.label(), what)
                         for what in overlap(a, b)]
        for key in sorted(target_dists):
            b = target_dists[key]
            if key != a.key:
                problems += ["%s installs %s, which %s of %s installed already" % (
                    a.label(), what, b.label(), owners.get(key, "an earlier provider")) for what in overlap(a, b)]
        names = a.import_names()
        for name in sorted(names):
            if name in STARTUP_HOOKS:
                problems.append("%s installs the module '%s', which Python runs at every start from PYTHONPATH, "
                                "inside the server, before anything else" % (a.label(), name))
            elif names[name] and name in modules and modules[name] != a.key:
                owner = modules[name]
                if owner is None:
                    whose = "its Python standard library (or a module of the distribution image that no package records)"
                else:
                    info = packages.get(owner, {})
                    whose = "%s %s" % (info.get("name", owner), info.get("version", "?"))
                problems.append("%s installs the import package '%s', which the server already imports from %s; "
                                "first on PYTHONPATH, the provider's copy would replace it" % (a.label(), name, whose))
    return problems


def overlap(a, b):
    """What two dists both install: a regular import package or module (namespace packages may be shared), or a file."""
    found = []
    na, nb = a.import_names(), b.import_names()
    regular = sorted(n for n in set(na) & set(nb) if na[n] or nb[n])
    found += ["the import package '%s'" % n for n in regular]
    found += ["the file %s" % f for f in sorted(set(a.files) & set(b.files)) if f.split("/")[0] not in regular]
    return found
