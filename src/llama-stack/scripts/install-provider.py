# Installs one provider's wheels into the shared volume, offline, and records what it did.
# Started by install-provider.sh with the provider image's Python (3.8 or newer).
#
# Why a staging directory: `pip install --target` ignores what is already in the target and silently
# skips (or half-overwrites) packages another provider installed first. Installing into a private
# staging directory and then moving only new distributions in lets us detect real version conflicts
# between providers and never leaves a partial install in the shared packages directory.
#
# The shared directory comes first on the server's PYTHONPATH, so whatever lands there replaces the
# server's own copy. Hence, with what inspect-distribution recorded in server-packages.json:
#   - a staged distribution the server already has is not installed: the server's copy serves the
#     provider (recorded in installed-packages.txt with `served-by=server`), provided every requirement
#     on it of what does get installed accepts the server's version; otherwise the install fails;
#   - what only such served distributions require is not installed either: the server has its own;
#   - no import package or file may come from two distributions (earlier providers, the server, its
#     standard library), except namespace packages that share no file.
# The rules themselves are in provider_packages.py, beside this script.
import json
import os
import re
import shutil
import subprocess
import sys

try:
    # Beside this script in the same ConfigMap (sys.path[0] is the script's directory); it needs pip.
    from provider_packages import (
        Dist, collisions, manifest_entries, manifest_line, metadata_problems, normalize, plan_install, valid_image,
        valid_provider_key,
    )
except ImportError as e:
    sys.stderr.write("ERROR: pip is not usable in provider image %s (%s)\n\nResolution: Provider images install their "
                     "wheels with the image's own pip; build the image on a Python base that has pip (for example "
                     "python:3.12-slim).\n" % (os.environ.get("PROVIDER_IMAGE", "?"), e))
    sys.exit(1)

SPEC = "/lls-provider/lls-provider-spec.yaml"
PACKAGES = "/lls-provider/packages"

provider_id = os.environ["PROVIDER_ID"]
# The provider's directories are named after its key, a DNS-1123 label derived from the id: an id
# is any text llama-stack accepts (`trustyai_fms`, even `a/b`), not necessarily a file name.
provider_key = os.environ["PROVIDER_KEY"]
image = os.environ["PROVIDER_IMAGE"]
api = os.environ["PROVIDER_API"]
container = os.environ["INIT_CONTAINER_NAME"]
shared = os.environ["EXTERNAL_PROVIDERS_DIR"]
target = os.path.join(shared, "python-packages")
manifest = os.path.join(shared, "installed-packages.txt")
metadata_dir = os.path.join(shared, "metadata", provider_key)
staging = os.path.join(shared, ".staging", provider_key)
server_packages = os.path.join(shared, "server-packages.json")


def fail(headline, body, resolution):
    lines = [headline, "", "Provider: " + provider_id, "Image: " + image, "Init Container: " + container, ""]
    lines += body
    lines += ["", "Resolution: " + resolution]
    sys.stderr.write("\n".join(lines) + "\n")
    sys.exit(1)


def check_metadata_yaml(extra_path=None):
    """Parses the metadata with PyYAML when the image (or an installed wheel) provides it.

    The provider image is not ours and may not ship PyYAML; the merge step validates the metadata
    fully either way. Returns True when the check ran.
    """
    if extra_path:
        sys.path.insert(0, extra_path)
    try:
        import yaml  # noqa: PLC0415 - optional by design
    except ImportError:
        return False
    finally:
        if extra_path:
            sys.path.remove(extra_path)
    try:
        with open(SPEC, encoding="utf-8") as f:
            yaml.safe_load(f)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = "line %d, column %d" % (mark.line + 1, mark.column + 1) if mark else "unknown position"
        problem = getattr(e, "problem", None) or str(e)
        fail(
            "ERROR: Invalid YAML in /lls-provider/lls-provider-spec.yaml in image " + image,
            ["YAML parse error at " + where + ": " + problem],
            "Fix the YAML syntax of lls-provider-spec.yaml at " + where + " and rebuild the provider image.",
        )
    return True


def distributions(path):
    """Maps normalized project name -> Dist for the distributions installed in path."""
    found = {}
    if os.path.isdir(path):
        for entry in sorted(os.listdir(path)):
            if entry.endswith(".dist-info"):
                dist = Dist(path, entry)
                found[dist.key] = dist
    return found


def installed_by():
    """Maps normalized project name -> 'provider X (image Y)' for the packages earlier providers installed."""
    owners = {}
    for e in manifest_entries(read_text(manifest) or ""):
        if not e["served"]:
            owners[normalize(e["name"])] = "provider '%s' (image %s)" % (e["provider"], e["image"])
    return owners


def read_server_packages():
    """What inspect-distribution recorded about the server's Python, or None (with a warning) without it."""
    text = read_text(server_packages)
    if text is None:
        print("WARNING: %s does not exist (the inspect-distribution init container did not run), so this provider's "
              "packages are installed without checking them against the server's own: a package the server already "
              "has would be replaced by the provider's copy." % server_packages)
        return None
    try:
        server = json.loads(text)
        if not isinstance(server.get("packages"), dict) or not isinstance(server.get("markers"), dict):
            raise ValueError("no packages or markers")
        return server
    except (ValueError, AttributeError) as e:
        fail("ERROR: Cannot read %s" % server_packages, ["%s" % e],
             "The inspect-distribution init container writes this file; check its log and run the pod again.")


def move_into_target(src, dst):
    """Moves a staged top-level entry into the target, merging namespace packages (collisions were refused before)."""
    if not os.path.lexists(dst):
        os.replace(src, dst)
    elif os.path.isdir(src) and os.path.isdir(dst) and not os.path.islink(dst):
        for child in sorted(os.listdir(src)):
            move_into_target(os.path.join(src, child), os.path.join(dst, child))


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def remove_staging():
    shutil.rmtree(staging, ignore_errors=True)
    try:
        os.rmdir(os.path.dirname(staging))  # only succeeds when no other staging is left
    except OSError:
        pass


def refuse(headline, title, items, resolution, notes=()):
    """Fails the install of staged packages: nothing of them reaches the shared directory."""
    remove_staging()
    fail(headline, [title] + ["  " + i for i in items] + list(notes), resolution)


def check_identity():
    """The provider key and image are recorded in installed-packages.txt: refuse what could forge a line there."""
    if not valid_provider_key(provider_key) or not valid_image(image) or not provider_id.isprintable():
        fail("ERROR: Invalid PROVIDER_ID %r, PROVIDER_KEY %r or PROVIDER_IMAGE %r in init container %r"
             % (provider_id, provider_key, image, container),
             ["Expected a provider id of one line of printable text, a provider key of lower-case letters, digits and "
              "'-' (a DNS-1123 label) and an image reference without spaces or special characters."],
             "Render the manifest with LlamaStackWithProviders instead of editing the init container's environment.")


def main():
    check_identity()
    checked = check_metadata_yaml()

    if os.path.isdir(metadata_dir):
        # Kubernetes runs init containers again when a pod restarts, and the emptyDir keeps what the
        # first run wrote: finding our own, complete install is success, not a duplicate.
        recorded = read_text(os.path.join(metadata_dir, "crd-config.yaml"))
        if recorded is not None and recorded.strip() == os.environ["PROVIDER_CRD_CONFIG"].strip():
            print("Provider '%s' is already installed (this init container ran before in this pod); nothing to do." % provider_id)
            return
        other = "an earlier provider"
        try:
            other = "image " + json.loads(recorded or "").get("image", "?")
        except ValueError:
            pass
        fail(
            "ERROR: Duplicate providerId '%s' in externalProviders" % provider_id,
            ["Images: " + other.replace("image ", "") + " and " + image],
            "Give each external provider a unique providerId.",
        )

    wheels = sorted(os.path.join(PACKAGES, w) for w in os.listdir(PACKAGES) if w.endswith(".whl"))
    if not wheels:
        fail(
            "ERROR: No wheel files (*.whl) in /lls-provider/packages/ in image " + image,
            [],
            "Put the provider wheel and all its dependency wheels in /lls-provider/packages/ and rebuild the image.",
        )

    server = read_server_packages()
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    os.makedirs(target, exist_ok=True)
    env = dict(os.environ, PIP_NO_INPUT="1", PIP_CONFIG_FILE=os.devnull)
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--find-links", PACKAGES, "--target", staging,
         "--no-cache-dir", "--disable-pip-version-check", "--no-warn-script-location"] + wheels,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
    )
    output = pip.stdout.decode("utf-8", "replace").rstrip()
    if pip.returncode != 0:
        remove_staging()
        # A requirement with no wheel at all in the image is a missing wheel, not a conflict: pip says
        # "(from versions: none)" because installation is offline (--no-index) by design.
        missing = re.findall(r"Could not find a version that satisfies the requirement (\S+).*\(from versions: none\)", output)
        if missing:
            fail(
                "ERROR: Cannot install provider '%s': a dependency wheel is missing from the image" % provider_id,
                ["Missing: " + ", ".join(missing), "", "Pip installation failed with:", output],
                "Add a wheel for every dependency of the provider to /lls-provider/packages/ and rebuild the image "
                "(for example `pip wheel --wheel-dir packages <provider>` or `pip download --only-binary=:all:`); "
                "installation in the pod is offline and never downloads anything.",
            )
        if re.search(r"ResolutionImpossible|conflict|Could not find a version that satisfies", output, re.I):
            fail(
                "ERROR: Cannot install provider '%s' due to dependency conflict" % provider_id,
                ["Pip installation failed with:", output, "",
                 "Previously installed packages can be found in: " + manifest],
                "Update provider images to use compatible dependency versions, or reorder providers in the "
                "spec if one provider's dependencies are a superset of another's.",
            )
        fail(
            "ERROR: Failed to install the wheels of provider '%s'" % provider_id,
            ["Pip installation failed with:", output],
            "Check that the wheels in /lls-provider/packages/ are compatible with the image's Python (%d.%d) "
            "and platform, and that every dependency wheel is included (installation is offline)."
            % sys.version_info[:2],
        )

    staged = distributions(staging)
    invalid = metadata_problems(staged.values())
    if invalid:
        refuse(
            "ERROR: Cannot install provider '%s': a wheel has invalid metadata" % provider_id,
            "Invalid distributions:", invalid,
            "Rebuild the wheel with a valid Name and Version in its METADATA; they are recorded in "
            "installed-packages.txt and must be a plain project name and version.",
        )

    existing = distributions(target)
    owners = installed_by()
    plan = plan_install(staged, existing, server, owners)
    if plan.server_conflicts or plan.provider_conflicts:
        notes = [""] + (["The server's packages can be found in: " + server_packages] if plan.server_conflicts else [])
        refuse(
            "ERROR: Cannot install provider '%s' due to dependency conflict" % provider_id,
            "Conflicting packages:", plan.server_conflicts + plan.provider_conflicts,
            ("A provider runs with the server's own copy of every package the distribution image already has; a "
             "provider image cannot replace them. Build the provider against the distribution's versions (its "
             "requirements must accept them), or use a distribution image whose packages the provider accepts. "
             if plan.server_conflicts else "")
            + "Update provider images to use compatible dependency versions, or reorder providers in the spec if "
            "one provider's dependencies are a superset of another's.",
            notes + ["Previously installed packages can be found in: " + manifest],
        )
    if plan.missing:
        refuse(
            "ERROR: Cannot install provider '%s': a dependency wheel for the server's Python is missing from the image" % provider_id,
            "Missing:", plan.missing,
            "Build the provider image's wheels for the distribution's Python %s (for example `pip download "
            "--python-version %s --only-binary=:all:`), so that every requirement that applies there has a wheel."
            % (server.get("python", "?"), ".".join(server.get("python", "?").split(".")[:2])),
        )

    new = [staged[k] for k in plan.install]
    collided = collisions(new, existing, owners, server)
    if collided:
        refuse(
            "ERROR: Cannot install provider '%s': its packages collide with packages already on the server's path" % provider_id,
            "Collisions:", collided,
            "Each import package and file may come from one distribution only. Rename the colliding package in "
            "one of the providers (for example 'acme_common' instead of 'common'), move the shared code into one "
            "distribution that both providers depend on (it is then installed once), or run the providers in "
            "separate pods.",
        )

    try:
        lines = [manifest_line(d.name, d.version, provider_key, image) for d in new] + [
            manifest_line(server["packages"][k]["name"], server["packages"][k]["version"], provider_key, image, served=True)
            for k in plan.served]
    except ValueError as e:
        remove_staging()
        fail("ERROR: Cannot record the packages of provider '%s' in installed-packages.txt" % provider_id, [str(e)],
             "Check the names and versions of the distributions in %s and in the provider image." % server_packages)

    for dist in new:
        for entry in sorted(dist.top_entries()):
            src = os.path.join(staging, entry)
            if os.path.lexists(src):
                move_into_target(src, os.path.join(target, entry))
    remove_staging()

    with open(manifest, "a", encoding="utf-8") as f:
        f.write("".join(lines))

    if not checked:
        checked = check_metadata_yaml(target)

    # Metadata last, and whole: written beside its place under a dot-name (which the merge step and
    # preflight skip), then renamed, so no reader ever sees a half-written provider.
    pending = os.path.join(os.path.dirname(metadata_dir), "." + provider_key + ".pending")
    shutil.rmtree(pending, ignore_errors=True)
    os.makedirs(pending)
    shutil.copyfile(SPEC, os.path.join(pending, "lls-provider-spec.yaml"))
    with open(os.path.join(pending, "crd-config.yaml"), "w", encoding="utf-8") as f:
        f.write(os.environ["PROVIDER_CRD_CONFIG"] + "\n")
    os.rename(pending, metadata_dir)

    print("Installed %d package(s) for provider '%s': %s" % (
        len(new), provider_id, ", ".join(d.name + "==" + d.version for d in new) or "none"))
    if plan.reused:
        print("Already installed by earlier providers: " + ", ".join(staged[k].name + "==" + staged[k].version for k in plan.reused))
    for key in plan.served:
        have = server["packages"][key]
        print("Using the server's %s %s (provider wheel %s not installed)" % (have["name"], have["version"], staged[key].version))
    if plan.unneeded:
        print("Not installed, required only by packages the server serves: "
              + ", ".join(staged[k].name + "==" + staged[k].version for k in plan.unneeded))
    if not checked:
        print("Note: PyYAML is not available in this image; the merge-config step validates the metadata.")
    print("Provider '%s' (api %s) is ready." % (provider_id, api))


main()
