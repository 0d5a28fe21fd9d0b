"""Parses rendered Dynamo container arguments with Dynamo's own parsers, in-process.

Reads a JSON list of {"id", "parser", "args"} on stdin and writes a JSON list of
{"id", "ok", "error", "unknown"} to stdout. Parsers:

- "frontend": dynamo.frontend.main.parse_args, the function `python -m dynamo.frontend` runs
  before it starts the server (it exits on an unknown argument or a failed validation).
- "vllm-dynamo": the Dynamo part of the vLLM worker's parser (DynamoRuntimeArgGroup and
  DynamoVllmArgGroup, then their configs' validate()), which dynamo.vllm.args.parse_args runs
  before handing the rest to vLLM's own parser. "unknown" lists what vLLM would have to accept.
- "sglang-dynamo": the same for the SGLang worker (DynamoSGLangArgGroup); the rest goes to SGLang.
- "module": args[0] is a package `python -m` can run (it has a __main__ module).
"""
import argparse
import contextlib
import io
import json
import logging
import sys


def frontend(args):
    from dynamo.frontend import main

    sys.argv = ["dynamo.frontend", *args]
    main.parse_args()
    return []


def worker(arg_group, config_class, args):
    from dynamo.common.configuration.groups.runtime_args import DynamoRuntimeArgGroup, DynamoRuntimeConfig

    parser = argparse.ArgumentParser(prog=f"dynamo.{arg_group.name.split('-')[1]}", allow_abbrev=False)
    DynamoRuntimeArgGroup().add_arguments(parser)
    arg_group().add_arguments(parser)
    parsed, unknown = parser.parse_known_args(args)

    class Config(DynamoRuntimeConfig, config_class):
        def validate(self):
            DynamoRuntimeConfig.validate(self)
            config_class.validate(self)

    Config.from_cli_args(parsed).validate()
    return unknown


def vllm_dynamo(args):
    from dynamo.vllm.backend_args import DynamoVllmArgGroup, DynamoVllmConfig

    return worker(DynamoVllmArgGroup, DynamoVllmConfig, args)


def sglang_dynamo(args):
    from dynamo.sglang.backend_args import DynamoSGLangArgGroup, DynamoSGLangConfig

    return worker(DynamoSGLangArgGroup, DynamoSGLangConfig, args)


def module(args):
    import importlib.util

    if importlib.util.find_spec(f"{args[0]}.__main__") is None:
        raise ValueError(f"python -m {args[0]}: no {args[0]}.__main__ module")
    return []


PARSERS = {"module": module, "frontend": frontend, "vllm-dynamo": vllm_dynamo, "sglang-dynamo": sglang_dynamo}


class Errors(logging.Handler):
    """Collects what the parsers log as errors before they exit (e.g. "Unknown arguments specified")."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def check(case):
    stderr = io.StringIO()
    errors = Errors()
    logging.getLogger().addHandler(errors)
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            unknown = PARSERS[case["parser"]](case["args"])
        return {"id": case["id"], "ok": True, "error": None, "unknown": unknown}
    except SystemExit as e:
        # argparse prints the usage, then "<prog>: error: <what>" as the last line.
        said = [line for line in stderr.getvalue().splitlines() if ": error: " in line] + errors.messages
        return {"id": case["id"], "ok": False, "error": f"exit {e.code}: {'; '.join(said)}", "unknown": None}
    except Exception as e:  # the parsers' own validation errors (ValueError and the like)
        return {"id": case["id"], "ok": False, "error": f"{type(e).__name__}: {e}", "unknown": None}
    finally:
        logging.getLogger().removeHandler(errors)


if __name__ == "__main__":
    results = [check(case) for case in json.load(sys.stdin)]
    sys.stdout.write(json.dumps(results))
