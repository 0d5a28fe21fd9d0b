"""Checks rendered RayService serve configs with Ray's own code, in-process (ray[llm] 2.60.0 from PyPI).

Reads a JSON list of {"id", "yaml"} on stdin, where "yaml" is a RayService's spec.serveConfigV2, and writes a
JSON list of results to stdout. Each document goes the way Ray takes it, and the first step that refuses it
is reported as {"stage", "error"}:
  - "schema": read with PyYAML (YAML 1.1, as KubeRay reads it before sending it to Ray as JSON) and validated
    with ray.serve.schema.ServeDeploySchema, the model Ray's dashboard validates a
    `PUT /api/serve/applications/` body with; "config" is what the schema made of it (`model_dump`);
  - "build": each application built as Ray's Serve controller builds it (ray/serve/_private/application_state.py
    build_serve_application): its import path imported, its builder called with its `args` by
    call_user_app_builder_with_args_if_necessary, which validates them with the builder's own models
    (ray.serve.llm's LLMServingArgs or PDServingArgs, and LLMConfig), and build_app; "deployments" lists what
    Ray would deploy, with the placement group each replica reserves;
  - "engine": each LLM config's vLLM arguments made as a Serve LLM replica makes them before it starts vLLM
    (ray/llm/_internal/serve/engines/vllm/vllm_engine.py _get_vllm_engine_config and _prepare_engine_config):
    VLLMEngineConfig.from_llm_config sorts engine_kwargs into vLLM's AsyncEngineArgs and FrontendArgs fields
    and refuses any other ("Unknown engine argument"), then vLLM's own AsyncEngineArgs and FrontendArgs are
    built from them, structured values (kv_transfer_config) validated by vLLM's config models. Only
    `create_engine_config`, which reads the model from Hugging Face on a GPU node, is not run.
Building needs a running Ray (LLMServer reads the runtime context), so a local one is started for the run, its
files in a temporary directory removed at the end. Logs go to stderr; stdout carries only the JSON.
"""
import json
import os
import shutil
import sys
import tempfile
import warnings

# vLLM logs to stdout: keep the real stdout for the result and send everything else to stderr.
RESULT = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

import yaml  # noqa: E402
import ray  # noqa: E402
from ray._common.utils import import_attr  # noqa: E402
from ray.serve._private.api import call_user_app_builder_with_args_if_necessary  # noqa: E402
from ray.serve._private.build_app import build_app  # noqa: E402
from ray.serve.llm import LLMConfig  # noqa: E402
from ray.serve.schema import ServeDeploySchema  # noqa: E402
from ray.llm._internal.serve.engines.vllm.vllm_engine import _normalize_vllm_engine_kwargs  # noqa: E402
from vllm.engine.arg_utils import AsyncEngineArgs  # noqa: E402
from vllm.entrypoints.launchers.cli_args import FrontendArgs  # noqa: E402


def llm_configs(args):
    """The LLM configs of an application's args, in the two shapes ray.serve.llm's builders take."""
    if "llm_configs" in args:
        return list(args["llm_configs"])
    return [args[role] for role in ("prefill_config", "decode_config") if role in args]


def engine_args(config):
    """The vLLM arguments a replica of this LLM config starts its engine with."""
    engine_config = LLMConfig.model_validate(config).get_engine_config()
    kwargs = engine_config.get_initialization_kwargs()
    AsyncEngineArgs(**_normalize_vllm_engine_kwargs(kwargs))
    FrontendArgs(**engine_config.frontend_kwargs)
    return {"engine": kwargs, "frontend": engine_config.frontend_kwargs}


def deployment_summary(deployment):
    replica = deployment._replica_config
    return {
        "name": deployment.name,
        "num_replicas": deployment._deployment_config.num_replicas,
        "placement_group_bundles": replica.placement_group_bundles,
        "placement_group_strategy": replica.placement_group_strategy,
    }


def check(case):
    result = {"id": case["id"], "ok": False, "stage": "schema", "error": None, "config": None, "deployments": [], "engines": []}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            document = yaml.safe_load(case["yaml"])
            schema = ServeDeploySchema.model_validate(document)
            result["config"] = schema.model_dump(mode="json", exclude_unset=True)
            result["stage"] = "build"
            for app in schema.applications:
                builder = call_user_app_builder_with_args_if_necessary(import_attr(app.import_path), app.args)
                built = build_app(builder, name=app.name)
                built.validate_single_fastapi_ingress()
                result["deployments"] += [deployment_summary(d) for d in built.deployments]
            result["stage"] = "engine"
            for app in schema.applications:
                result["engines"] += [engine_args(c) for c in llm_configs(app.args)]
        result.update(ok=True, stage=None)
    except Exception as e:  # pydantic's ValidationError, a builder's ValueError, or YAML the reader refuses
        result["error"] = f"{type(e).__name__}: {e}"
    return result


if __name__ == "__main__":
    cases = json.load(sys.stdin)
    temp_dir = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    try:
        ray.init(num_cpus=1, num_gpus=0, include_dashboard=False, log_to_driver=False, _temp_dir=temp_dir)
        results = [check(case) for case in cases]
    finally:
        ray.shutdown()
        shutil.rmtree(temp_dir, ignore_errors=True)
    RESULT.write(json.dumps(results))
    RESULT.flush()
