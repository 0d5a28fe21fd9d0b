# Installs one provider's wheels into the shared volume, offline, and records what it did.
# Started by install-provider.sh with the provider image's Python (3.8 or newer).
#
# Why a staging directory: `pip install --target` ignores what is already in the target and silently
# skips (or half-overwrites) packages another provider installed first. Installing into a private
# staging directory and then moving only new distributions in lets us detect real version conflicts
# between providers and never leaves a partial install in the shared packages directory.
import json
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata as importlib_metadata

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


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def distributions(path):
    """Maps normalized project name -> (name, version, dist-info dir name) for the dists in path."""
    found = {}
    if not os.path.isdir(path):
        return found
    for entry in sorted(os.listdir(path)):
        if entry.endswith(".dist-info"):
            dist = importlib_metadata.Distribution.at(os.path.join(path, entry))
            name = dist.metadata["Name"]
            found[normalize(name)] = (name, dist.version, entry, dist)
    return found


def installed_by():
    """Maps normalized project name -> 'provider X (image Y)' from the manifest of earlier providers."""
    owners = {}
    if os.path.isfile(manifest):
        with open(manifest, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^(\S+)==\S+ provider=(\S+) image=(\S+)$", line.strip())
                if m:
                    owners[normalize(m.group(1))] = "provider '%s' (image %s)" % (m.group(2), m.group(3))
    return owners


def requirement_conflicts(staged, existing):
    """Requirements of the staged dists that the already-installed versions do not satisfy."""
    try:
        from pip._vendor.packaging.requirements import Requirement  # noqa: PLC0415 - pip is present
    except ImportError:
        return []
    owners = installed_by()
    conflicts = []
    for key in sorted(staged):
        name, version, _, dist = staged[key]
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            dep = normalize(req.name)
            if dep in existing and dep in staged and staged[dep][1] != existing[dep][1]:
                have = existing[dep][1]
                if not req.specifier.contains(have, prereleases=True):
                    owner = owners.get(dep, "an earlier provider")
                    conflicts.append(
                        "%s %s requires %s, but %s %s is already installed by %s"
                        % (name, version, text, existing[dep][0], have, owner)
                    )
    return conflicts


def top_level_entries(dist_dir, dist):
    """The top-level names in the staging directory that belong to one distribution."""
    entries = {dist_dir}
    for f in dist.files or []:
        first = str(f).split("/")[0]
        if first and first != ".." and first != "__pycache__":
            entries.add(first)
    return entries


def move_into_target(src, dst):
    """Moves a staged top-level entry into the target; merges directories another dist shares."""
    if not os.path.lexists(dst):
        os.replace(src, dst)
    elif os.path.isdir(src) and os.path.isdir(dst):
        # A namespace package or a shared `bin/`: keep what is there, add what is new.
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


def main():
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
    existing = distributions(target)
    conflicts = requirement_conflicts(staged, existing)
    if conflicts:
        remove_staging()
        fail(
            "ERROR: Cannot install provider '%s' due to dependency conflict" % provider_id,
            ["Conflicting packages:"] + ["  " + c for c in conflicts] + ["",
             "Previously installed packages can be found in: " + manifest],
            "Update provider images to use compatible dependency versions, or reorder providers in the "
            "spec if one provider's dependencies are a superset of another's.",
        )

    new = [key for key in sorted(staged) if key not in existing]
    for key in new:
        _, _, dist_dir, dist = staged[key]
        for entry in sorted(top_level_entries(dist_dir, dist)):
            src = os.path.join(staging, entry)
            if os.path.lexists(src):
                move_into_target(src, os.path.join(target, entry))
    remove_staging()

    with open(manifest, "a", encoding="utf-8") as f:
        for key in new:
            name, version = staged[key][0], staged[key][1]
            f.write("%s==%s provider=%s image=%s\n" % (name, version, provider_id, image))

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

    reused = [staged[k][0] + "==" + staged[k][1] for k in sorted(staged) if k in existing]
    print("Installed %d package(s) for provider '%s': %s" % (
        len(new), provider_id, ", ".join(staged[k][0] + "==" + staged[k][1] for k in new) or "none"))
    if reused:
        print("Already installed by earlier providers: " + ", ".join(reused))
    if not checked:
        print("Note: PyYAML is not available in this image; the merge-config step validates the metadata.")
    print("Provider '%s' (api %s) is ready." % (provider_id, api))


main()
