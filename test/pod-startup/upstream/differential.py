"""Preflight's verdict against the server's own loading, for one case made by make-cases.sh.

Run with the Python of a real server (llama-stack 0.3.5 or 0.7.3, ogx 1.1.3 or 1.5.0; SERVER_PACKAGE names
its package, `ogx` or `llama_stack`): runs preflight.py on the case, then loads the same config entry with
the server's own code as the server does (core/stack.py replace_env_vars,
core/distribution.py get_external_providers_from_module, core/resolver.py validate_and_prepare_providers
and instantiate_provider, which calls the factory). A missing protocol method counts as loaded: preflight
stops before the factory. Prints one JSON line: {"case", "preflight": "pass"|"fail", "server": "loads"|"refused: ..."}.
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
case = sys.argv[1]
shared = os.path.join(case, "shared")
pkgs = os.path.join(shared, "python-packages")
sys.path.insert(0, pkgs)
cfg_path = os.path.join(case, "config.yaml")
package = os.environ.get("SERVER_PACKAGE") or "llama_stack"
config_variable = "OGX_CONFIG" if package == "ogx" else "LLAMA_STACK_CONFIG"
pre = subprocess.run([sys.executable, PREFLIGHT], capture_output=True, text=True,
                     env=dict(os.environ, EXTERNAL_PROVIDERS_DIR=shared, PYTHONPATH=pkgs, **{config_variable: cfg_path}))
distribution = importlib.import_module(package + ".core.distribution")
resolver = importlib.import_module(package + ".core.resolver")
Provider = importlib.import_module(package + ".core.datatypes").Provider
replace_env_vars = importlib.import_module(package + ".core.stack").replace_env_vars

verdict = "loads"
try:
    cfg = replace_env_vars(yaml.safe_load(open(cfg_path)))
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
    verdict = "refused (%s: %s)" % (type(e).__name__, str(e).splitlines()[0][:100])
print(json.dumps({"case": os.path.basename(case), "preflight": "pass" if pre.returncode == 0 else "fail", "server": verdict}))
