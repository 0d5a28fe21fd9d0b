"""Preflight's verdict against the server's own loading, for the cases made by make-cases.sh.

Run with the Python of a real server (llama-stack 0.3.5 or 0.7.3, ogx 1.1.3 or 1.5.0; SERVER_PACKAGE names
its package, `ogx` or `llama_stack`) and the case directories as arguments. For each case: runs preflight.py
on it, then loads the same config entry with the server's own code as the server does (core/stack.py
replace_env_vars, core/distribution.py get_external_providers_from_module, core/resolver.py
validate_and_prepare_providers and instantiate_provider, which calls the factory). A missing protocol
method counts as loaded: preflight stops before the factory. Prints one JSON line per case:
{"case", "preflight": "pass"|"fail", "server": "loads"|"refused: ..."}.

The server's modules are imported once; each case is loaded in a child forked from here, so no case sees
another's provider package, and the preflights (each a process of its own, as in the pod) run meanwhile.
"""
import asyncio
import importlib
import json
import os
import subprocess
import sys
import types

import yaml

PREFLIGHT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src", "llama-stack", "scripts", "preflight.py")
package = os.environ.get("SERVER_PACKAGE") or "llama_stack"
config_variable = "OGX_CONFIG" if package == "ogx" else "LLAMA_STACK_CONFIG"
cases = sys.argv[1:]


def packages_of(case):
    return os.path.join(case, "shared", "python-packages")


def preflight(case):
    return subprocess.Popen([sys.executable, PREFLIGHT], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, EXTERNAL_PROVIDERS_DIR=os.path.join(case, "shared"), PYTHONPATH=packages_of(case),
                                     **{config_variable: os.path.join(case, "config.yaml")}))


preflights = {case: preflight(case) for case in cases}
distribution = importlib.import_module(package + ".core.distribution")
resolver = importlib.import_module(package + ".core.resolver")
Provider = importlib.import_module(package + ".core.datatypes").Provider
replace_env_vars = importlib.import_module(package + ".core.stack").replace_env_vars


def server_verdict(case):
    sys.path.insert(0, packages_of(case))
    try:
        cfg = replace_env_vars(yaml.safe_load(open(os.path.join(case, "config.yaml"))))
        api_str, entries = next(iter(cfg["providers"].items()))
        prov = Provider(**entries[0])
        api = distribution.Api(api_str)
        reg = {api: {}}
        distribution.get_external_providers_from_module(reg, types.SimpleNamespace(providers={api_str: [prov]}), False)
        rc = types.SimpleNamespace(providers={api_str: [prov]}, vector_stores=None, external_apis_dir=None, telemetry=types.SimpleNamespace(enabled=False))
        specs = resolver.validate_and_prepare_providers(rc, reg, set(), set())
        pws = specs[api_str][prov.provider_id]
        try:
            asyncio.run(resolver.instantiate_provider(pws, {}, {}, None, rc, []))
        except ValueError as e:
            if "does not implement" not in str(e): raise
    except Exception as e:
        return "refused (%s: %s)" % (type(e).__name__, str(e).splitlines()[0][:100])
    return "loads"


def in_child(case):
    """The server's verdict on `case`, reached in a forked child."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            verdict = server_verdict(case)
        except BaseException as e:  # noqa: BLE001 - whatever happens, the parent gets a line
            verdict = "child failed (%s)" % type(e).__name__
        os.write(write, verdict.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        verdict = pipe.read().decode()
    os.waitpid(pid, 0)
    return verdict


for case in cases:
    server = in_child(case)
    passed = preflights[case].wait() == 0
    print(json.dumps({"case": os.path.basename(case), "preflight": "pass" if passed else "fail", "server": server}), flush=True)
