# Finds the distribution's own config in the distribution image and copies it to BASE_CONFIG_FILE for
# the merge step. Started by extract-distribution-config.sh with the interpreter of the server's command.
#
# Where the config lives depends on the image (upstream ogx-ai/ogx and llama-stack, containers/Containerfile):
#   1. $RUN_CONFIG_PATH, set by the image: its entrypoint runs that file when it exists;
#   2. fixed paths of images that keep a file (CONFIG_SEARCH_PATHS: /opt/app-root/config.yaml in the
#      OpenDataHub image, ...);
#   3. the config shipped inside the installed server package (SERVER_PACKAGE: `ogx` from ogx 0.8,
#      `llama_stack` before) for the distribution the image runs (the entrypoint's `ogx stack run
#      $DISTRO_NAME`): <package>/distributions/<name>/config.yaml (llama-stack >= 0.4 and ogx) or
#      run.yaml (0.2.1x-0.3), llama_stack/templates/<name>/run.yaml (earlier 0.2). The name is
#      DISTRIBUTION_NAME (from the rendered spec) or the image's DISTRO_NAME.
# The first file that exists wins; when none does, the error lists every path tried.
import importlib.util
import os
import shutil
import sys

image = os.environ.get("DISTRIBUTION_IMAGE", "")
target = os.environ["BASE_CONFIG_FILE"]


package = os.environ.get("SERVER_PACKAGE") or ""
if not package:
    sys.exit("ERROR: SERVER_PACKAGE is not set: the construct sets it to the server release's Python package (ogx, llama_stack).")


def package_candidates(name):
    """The config files of distribution `name` inside the installed server package."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return [], "the %s package is not installed for %s" % (package, sys.executable)
    root = list(spec.submodule_search_locations)[0]
    return [
        os.path.join(root, "distributions", name, "config.yaml"),
        os.path.join(root, "distributions", name, "run.yaml"),
        os.path.join(root, "templates", name, "run.yaml"),
    ], None


def candidates():
    tried = []
    run_config = os.environ.get("RUN_CONFIG_PATH", "")
    if run_config:
        tried.append((run_config, "RUN_CONFIG_PATH of the image"))
    for path in os.environ.get("CONFIG_SEARCH_PATHS", "").split(":"):
        if path:
            tried.append((path, "search path"))
    name = os.environ.get("DISTRIBUTION_NAME") or os.environ.get("DISTRO_NAME") or ""
    notes = []
    if name:
        if "/" in name or name in (".", ".."):
            notes.append("distribution name %r is not a directory name; the package was not searched" % name)
        else:
            paths, problem = package_candidates(name)
            tried.extend((p, "distribution '%s' in the installed package" % name) for p in paths)
            if problem:
                notes.append(problem)
    else:
        notes.append("no distribution name (neither DISTRIBUTION_NAME nor the image's DISTRO_NAME is set); "
                     "the installed package was not searched")
    return tried, notes


def main():
    tried, notes = candidates()
    for path, why in tried:
        if os.path.isfile(path):
            print("Found distribution config at %s (%s)" % (path, why))
            # Copy then rename, so the merge step never reads a half-written file.
            shutil.copyfile(path, target + ".tmp")
            os.replace(target + ".tmp", target)
            print("Copied to %s" % target)
            return 0
    lines = ["ERROR: No config.yaml or run.yaml found in distribution image %s" % image, "Checked paths:"]
    lines += ["  - %s (%s: not found)" % (path, why) for path, why in tried]
    lines += ["Note: " + n for n in notes]
    lines += ["", "Resolution: Either provide a user config (userConfig: a ConfigMap or an inline config), name the "
              "distribution the image runs (distribution.name), or set distributionConfigPaths to where the image "
              "keeps its config.yaml or run.yaml."]
    sys.stderr.write("\n".join(lines) + "\n")
    return 1


sys.exit(main())
