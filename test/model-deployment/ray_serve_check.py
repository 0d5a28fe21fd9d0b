"""Validates rendered RayService serve configs with Ray's own Serve schema, in-process.

Reads a JSON list of {"id", "yaml"} on stdin, where "yaml" is a RayService's spec.serveConfigV2, and writes a
JSON list of {"id", "ok", "error", "config"} to stdout. Each document is read with PyYAML (YAML 1.1, as
KubeRay reads it before sending it to Ray as JSON) and validated with ray.serve.schema.ServeDeploySchema,
the model Ray's dashboard validates a `PUT /api/serve/applications/` body with (ray 2.60.0 from PyPI,
`ray[serve]`); "config" is what the schema made of it (`model_dump`), for the test to compare.
"""
import json
import sys
import warnings

import yaml
from ray.serve.schema import ServeDeploySchema


def check(case):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = ServeDeploySchema.model_validate(yaml.safe_load(case["yaml"]))
        return {"id": case["id"], "ok": True, "error": None, "config": model.model_dump(mode="json", exclude_unset=True)}
    except Exception as e:  # pydantic's ValidationError, or YAML the reader refuses
        return {"id": case["id"], "ok": False, "error": f"{type(e).__name__}: {e}", "config": None}


if __name__ == "__main__":
    sys.stdout.write(json.dumps([check(case) for case in json.load(sys.stdin)]))
