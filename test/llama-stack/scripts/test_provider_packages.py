"""Unit tests of src/llama-stack/scripts/provider_packages.py (the rules of the provider install step).

Run by test/llama-stack/install-rules.test.ts with the host's python3 (which has pip, whose vendored
`packaging` the module uses). Distributions are laid out as `pip install --target` leaves them: a
`<name>-<version>.dist-info/` with METADATA and RECORD beside the files.
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src", "llama-stack", "scripts"))

from provider_packages import (  # noqa: E402
    Dist, collisions, manifest_entries, manifest_line, metadata_problems, plan_install,
)

SERVER_MARKERS = {
    "implementation_name": "cpython", "implementation_version": "3.12.1", "os_name": "posix",
    "platform_machine": "x86_64", "platform_release": "6.1", "platform_system": "Linux", "platform_version": "#1",
    "python_full_version": "3.12.1", "platform_python_implementation": "CPython", "python_version": "3.12",
    "sys_platform": "linux",
}


def server(packages, modules=None):
    """A server-packages.json document: packages as {name: version}."""
    return {
        "image": "registry.test/distribution:1", "python": "3.12.1", "markers": SERVER_MARKERS,
        "packages": {n.lower().replace("_", "-"): {"name": n, "version": v} for n, v in packages.items()},
        "modules": modules or {},
    }


class Dir:
    """A directory of installed distributions."""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="kic-provider-packages-")

    def add(self, name, version, requires=(), files=None):
        info = "%s-%s.dist-info" % (name.replace("-", "_"), version)
        files = files if files is not None else {"%s/__init__.py" % name.replace("-", "_").lower(): ""}
        os.makedirs(os.path.join(self.path, info))
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(self.path, rel)) or self.path, exist_ok=True)
            with open(os.path.join(self.path, rel), "w") as f:
                f.write(text)
        with open(os.path.join(self.path, info, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version))
            f.writelines("Requires-Dist: %s\n" % r for r in requires)
        with open(os.path.join(self.path, info, "RECORD"), "w") as f:
            f.writelines("%s,,\n" % rel for rel in list(files) + [info + "/METADATA", info + "/RECORD"])
        return Dist(self.path, info)

    def dists(self):
        found = {}
        for entry in sorted(os.listdir(self.path)):
            if entry.endswith(".dist-info"):
                d = Dist(self.path, entry)
                found[d.key] = d
        return found

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


class Case(unittest.TestCase):
    def setUp(self):
        self.staged, self.target = Dir(), Dir()

    def tearDown(self):
        self.staged.remove()
        self.target.remove()

    def plan(self, srv, owners=None):
        return plan_install(self.staged.dists(), self.target.dists(), srv, owners or {})


class ServerPackages(Case):
    def test_a_dependency_the_server_satisfies_is_served_not_installed(self):
        self.staged.add("acme-p", "1.0", ["PyYAML>=6"])
        self.staged.add("PyYAML", "5.0", files={"yaml/__init__.py": ""})
        plan = self.plan(server({"PyYAML": "6.0.3"}))
        self.assertEqual((plan.served, plan.install), (["pyyaml"], ["acme-p"]))
        self.assertEqual(plan.server_conflicts + plan.provider_conflicts + plan.missing, [])

    def test_a_requirement_the_servers_version_breaks_is_a_conflict_naming_both_versions(self):
        self.staged.add("acme-p", "1.0", ["PyYAML<6"])
        self.staged.add("PyYAML", "5.0", files={"yaml/__init__.py": ""})
        plan = self.plan(server({"PyYAML": "6.0.3"}))
        self.assertEqual(plan.server_conflicts, [
            "acme-p 1.0 requires PyYAML<6 (the provider image ships PyYAML 5.0), but the server (distribution image "
            "registry.test/distribution:1, Python 3.12.1) has PyYAML 6.0.3"])

    def test_requirements_of_dists_the_server_serves_do_not_count(self):
        # The server's fastapi comes with the server's starlette; the provider's fastapi pin is irrelevant.
        self.staged.add("acme-p", "1.0", ["fastapi>=0.100"])
        self.staged.add("fastapi", "0.100.0", ["starlette<0.30"])
        self.staged.add("starlette", "0.29.0")
        plan = self.plan(server({"fastapi": "0.115.0", "starlette": "0.40.0"}))
        self.assertEqual(plan.server_conflicts, [])
        self.assertEqual(plan.served, ["fastapi", "starlette"])

    def test_what_only_a_served_dist_requires_is_not_installed(self):
        # lmeval's closure carries llama-stack and what llama-stack needs: the server's llama-stack comes
        # with the server's own dependencies, so oci (required by llama-stack alone) is not needed.
        self.staged.add("acme-p", "1.0", ["llama-stack", "kubernetes"])
        self.staged.add("llama-stack", "0.7.3", ["oci>=2", "fastapi"])
        self.staged.add("oci", "2.182.1", ["urllib3>=2.6.3"])
        self.staged.add("kubernetes", "35.0.0", ["urllib3>=1.24"])
        self.staged.add("urllib3", "2.7.0")
        self.staged.add("fastapi", "0.140.7")
        plan = self.plan(server({"llama-stack": "0.3.5", "urllib3": "2.6.2", "fastapi": "0.120.0"}))
        self.assertEqual(plan.served, ["fastapi", "llama-stack", "urllib3"])
        self.assertEqual(plan.install, ["acme-p", "kubernetes"])
        self.assertEqual(plan.unneeded, ["oci"])
        # oci's requirement on urllib3 does not count: oci is not installed.
        self.assertEqual(plan.server_conflicts + plan.provider_conflicts + plan.missing, [])

    def test_a_dependency_of_an_installed_dist_stays_needed_even_when_a_served_dist_requires_it_too(self):
        self.staged.add("acme-p", "1.0", ["llama-stack", "acme-lib"])
        self.staged.add("llama-stack", "0.7.3", ["acme-lib"])
        self.staged.add("acme-lib", "1.0")
        plan = self.plan(server({"llama-stack": "0.7.3"}))
        self.assertEqual((plan.install, plan.unneeded), (["acme-lib", "acme-p"], []))

    def test_a_dropped_dependency_is_checked_against_every_requirement_of_what_is_installed(self):
        self.staged.add("acme-p", "1.0", ["acme-lib", "PyYAML>=5"])
        self.staged.add("acme-lib", "1.0", ["PyYAML<6"])
        self.staged.add("PyYAML", "5.0", files={"yaml/__init__.py": ""})
        plan = self.plan(server({"PyYAML": "6.0.3"}))
        self.assertEqual(len(plan.server_conflicts), 1)
        self.assertIn("acme-lib 1.0 requires PyYAML<6", plan.server_conflicts[0])

    def test_markers_are_evaluated_for_the_servers_python(self):
        self.staged.add("acme-p", "1.0", ['tomli<1; python_version < "3.11"'])
        self.staged.add("tomli", "0.9")
        self.assertEqual(self.plan(server({"tomli": "2.0.1"})).server_conflicts, [])
        self.staged.remove()
        self.staged = Dir()
        self.staged.add("acme-p", "1.0", ['exceptiongroup; python_version >= "3.12"'])
        plan = self.plan(server({}))
        self.assertEqual(plan.missing, [
            'acme-p 1.0 requires exceptiongroup; python_version >= "3.12", which applies to the server\'s Python 3.12.1, '
            "but the provider image has no wheel for it"])

    def test_extras_asked_for_make_their_requirements_apply(self):
        self.staged.add("acme-p", "1.0", ["acme-lib[yaml]"])
        self.staged.add("acme-lib", "1.0", ['PyYAML<6; extra == "yaml"'])
        self.staged.add("PyYAML", "5.0", files={"yaml/__init__.py": ""})
        self.assertEqual(len(self.plan(server({"PyYAML": "6.0.3"})).server_conflicts), 1)

    def test_an_extra_nobody_asks_for_does_not_apply(self):
        self.staged.add("acme-p", "1.0", ["acme-lib"])
        self.staged.add("acme-lib", "1.0", ['PyYAML<6; extra == "yaml"'])
        self.assertEqual(self.plan(server({"PyYAML": "6.0.3"})).server_conflicts, [])

    def test_a_wheel_nothing_requires_is_served_only_at_the_servers_version(self):
        self.staged.add("acme-p", "1.0")
        same = self.plan(server({"acme-p": "1.0.0"}))
        self.assertEqual((same.served, same.server_conflicts), (["acme-p"], []))
        other = self.plan(server({"acme-p": "0.9"}))
        self.assertEqual(other.server_conflicts, [
            "the provider image ships acme-p 1.0, but the server (distribution image registry.test/distribution:1, "
            "Python 3.12.1) has acme-p 0.9; a provider image cannot replace the server's packages"])

    def test_without_the_servers_record_everything_is_installed_as_before(self):
        self.staged.add("acme-p", "1.0", ["PyYAML<6"])
        self.staged.add("PyYAML", "5.0", files={"yaml/__init__.py": ""})
        plan = self.plan(None)
        self.assertEqual((plan.served, plan.install, plan.server_conflicts), ([], ["acme-p", "pyyaml"], []))


class EarlierProviders(Case):
    def test_a_version_an_earlier_provider_installed_that_a_requirement_rejects_is_a_conflict(self):
        self.target.add("acme-shared", "1.0")
        self.staged.add("acme-new", "1.0", ["acme-shared>=2"])
        self.staged.add("acme-shared", "2.0")
        plan = self.plan(server({}), {"acme-shared": "provider 'old' (image registry.test/old:1)"})
        self.assertEqual(plan.provider_conflicts, [
            "acme-new 1.0 requires acme-shared>=2, but acme-shared 1.0 is already installed by provider 'old' "
            "(image registry.test/old:1)"])

    def test_an_acceptable_version_installed_earlier_is_reused(self):
        self.target.add("acme-shared", "1.5")
        self.staged.add("acme-new", "1.0", ["acme-shared>=1"])
        self.staged.add("acme-shared", "2.0")
        plan = self.plan(server({}))
        self.assertEqual((plan.install, plan.reused, plan.provider_conflicts), (["acme-new"], ["acme-shared"], []))


class Collisions(Case):
    OWNERS = {"acme-a": "provider 'a' (image registry.test/a:1)"}

    def test_the_same_regular_import_package_from_two_providers(self):
        self.target.add("acme-a", "1.0", files={"common/__init__.py": "", "common/a.py": ""})
        b = self.staged.add("acme-b", "2.0", files={"common/__init__.py": "", "common/b.py": ""})
        self.assertEqual(collisions([b], self.target.dists(), self.OWNERS, server({})), [
            "acme-b 2.0 installs the import package 'common', which acme-a 1.0 of provider 'a' (image registry.test/a:1) "
            "installed already"])

    def test_namespace_packages_merge_when_no_file_collides(self):
        self.target.add("acme-a", "1.0", files={"acme_ns/a/__init__.py": ""})
        b = self.staged.add("acme-b", "1.0", files={"acme_ns/b/__init__.py": ""})
        self.assertEqual(collisions([b], self.target.dists(), self.OWNERS, server({})), [])
        c = self.staged.add("acme-c", "1.0", files={"acme_ns/a/__init__.py": "# mine\n"})
        self.assertEqual(collisions([c], self.target.dists(), self.OWNERS, server({})), [
            "acme-c 1.0 installs the file acme_ns/a/__init__.py, which acme-a 1.0 of provider 'a' (image "
            "registry.test/a:1) installed already"])

    def test_two_dists_of_one_provider_image(self):
        a = self.staged.add("acme-a", "1.0", files={"common.py": ""})
        b = self.staged.add("acme-b", "1.0", files={"common/__init__.py": ""})
        self.assertEqual(collisions([a, b], {}, {}, server({})), [
            "acme-a 1.0 and acme-b 1.0 (both in this provider image) install the import package 'common'"])

    def test_import_packages_of_the_server_and_its_standard_library(self):
        fork = self.staged.add("yaml-fork", "1.0", files={"yaml/__init__.py": "", "json/__init__.py": "", "google/x.py": ""})
        srv = server({"PyYAML": "6.0.3"}, {"yaml": "pyyaml", "json": None, "google": "protobuf"})
        self.assertEqual(collisions([fork], {}, {}, srv), [
            "yaml-fork 1.0 installs the import package 'json', which the server already imports from its Python "
            "standard library (or a module of the distribution image that no package records); first on PYTHONPATH, "
            "the provider's copy would replace it",
            "yaml-fork 1.0 installs the import package 'yaml', which the server already imports from PyYAML 6.0.3; "
            "first on PYTHONPATH, the provider's copy would replace it"])

    def test_startup_hooks(self):
        hook = self.staged.add("acme-hook", "1.0", files={"sitecustomize.py": ""})
        self.assertIn("installs the module 'sitecustomize', which Python runs at every start",
                      collisions([hook], {}, {}, None)[0])


class Metadata(Case):
    def test_names_and_versions_that_could_forge_manifest_lines_are_refused(self):
        good = self.staged.add("acme-good", "1.0.post1")
        spaced = self.staged.add("acme-x", "1.0 provider=evil image=x")
        invalid = self.staged.add("acme-y", "not-a-version")
        self.assertEqual(metadata_problems([good]), [])
        self.assertEqual(metadata_problems([spaced, invalid]), [
            "acme_x-1.0 provider=evil image=x.dist-info: Version '1.0 provider=evil image=x' is not a valid version "
            "(PEP 440, e.g. 1.2.0)",
            "acme_y-not-a-version.dist-info: Version 'not-a-version' is not a valid version (PEP 440, e.g. 1.2.0)"])

    def test_a_name_with_a_folded_newline_is_refused(self):
        info = os.path.join(self.staged.path, "evil-1.0.dist-info")
        os.makedirs(info)
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: evil==1.0 provider=a image=b\n x\nVersion: 1.0\n")
        problems = metadata_problems([Dist(self.staged.path, "evil-1.0.dist-info")])
        self.assertEqual(len(problems), 1)
        self.assertIn("is not a valid project name", problems[0])

    def test_manifest_lines_read_back_exactly_and_forged_ones_are_refused(self):
        line = manifest_line("PyYAML", "6.0.3", "acme", "registry.test/acme:1", served=True)
        self.assertEqual(line, "PyYAML==6.0.3 provider=acme image=registry.test/acme:1 served-by=server\n")
        self.assertEqual(manifest_entries(line), [
            {"name": "PyYAML", "version": "6.0.3", "provider": "acme", "image": "registry.test/acme:1", "served": True}])
        for forged in [("a", "1", "p\nb==2 provider=q image=r", "i"), ("a", "1", "p", "i provider=x"),
                       ("a", "1", "P", "i"), ("a b", "1", "p", "i")]:
            with self.assertRaises(ValueError):
                manifest_line(*forged)

    def test_the_parser_ignores_lines_that_are_not_exactly_of_the_format(self):
        text = ("a==1 provider=p image=i\n"
                "b==1 provider=p image=i provider=q image=j\n"
                "c==1 provider=UPPER image=i\n"
                "d==1 provider=p image=i served-by=server\n")
        self.assertEqual([(e["name"], e["served"]) for e in manifest_entries(text)], [("a", False), ("d", True)])


if __name__ == "__main__":
    unittest.main()
