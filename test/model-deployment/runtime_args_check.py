"""Parses rendered runtime arguments with the runtimes' own parsers, in-process.

Reads lines of JSON lists of {"id", "parser", "args"} on stdin and writes, for each, a line of a JSON list
of {"id", "ok", "error", "values", "deprecations"} to stdout ("values": what the parser read, where a test
checks it; "deprecations": what Dynamo's code warned is deprecated about the arguments). One process
serves every list of a test file: the parsers' modules (vLLM, SGLang) are imported once.
Each parser is upstream's own function, run as the container would run it, up to the point where the
runtime would touch a GPU or download the model:

- "frontend": dynamo.frontend.main.parse_args, the function `python -m dynamo.frontend` runs before it
  starts the server (it exits on an unknown argument or a failed validation).
- "dynamo-vllm": dynamo.vllm.args.parse_args, what `python -m dynamo.vllm` runs first: Dynamo's
  argument groups and their validation, then vLLM's own engine parser (AsyncEngineArgs) for the rest,
  AsyncEngineArgs.from_cli_args, and Dynamo's cross-checks (e.g. a prefill worker without
  --kv-transfer-config is refused). It needs no GPU and downloads nothing.
- "dynamo-sglang": dynamo.sglang.args.parse_args, what `python -m dynamo.sglang` runs first: Dynamo's
  groups, then SGLang's ServerArgs parser for the rest (unknown arguments exit), then Dynamo's own
  checks. It is stopped where it would download the model (dynamo.llm.fetch_model); reaching that
  point means every argument was accepted.
- "kaito-vllm": args[0] is a KAITO inference_config.yaml. KAITO's vLLM entry point
  (kaito: presets/workspace/inference/vllm/inference_api.py, KAITOArgumentParser.parse_args) reads it
  with yaml.safe_load, appends "--<key>" and str(value) for every key of its `vllm:` map, and hands
  the list to vLLM's server parser (make_arg_parser: vllm.entrypoints.openai.cli_args, from vLLM 0.31
  vllm.entrypoints.launchers.cli_args); the same is done here with the same functions.
- "vllm-serve": args are `vllm serve` flags, parsed by vLLM's server parser (make_arg_parser, as for
  "kaito-vllm"); "values" holds what it made of each flag given, by field name, and "model_tag" when a text
  went to `vllm serve`'s positional model argument instead (after a switch, which takes none).
- "module": args[0] is a package `python -m` can run (it has a __main__ module).
"""
import asyncio
import contextlib
import io
import json
import logging
import sys
import warnings


def vllm_platform():
    """vLLM picks its platform by probing the hardware when a parser is first built, and on a machine
    without a GPU it finds none and refuses to build one ("Failed to infer device type"); its CUDA
    platform cannot be loaded without the NVIDIA driver. vLLM's own CPU platform is set instead: the
    parsers and argument checks are the same on every platform, only device defaults differ."""
    import vllm.platforms
    from vllm.platforms.cpu import CpuPlatform

    vllm.platforms._current_platform = CpuPlatform()  # what vllm.platforms.__getattr__ would have resolved


def frontend(args):
    from dynamo.frontend import main

    sys.argv = ["dynamo.frontend", *args]
    main.parse_args()


def dynamo_vllm(args):
    vllm_platform()
    from dynamo.vllm import args as vllm_args

    sys.argv = ["dynamo.vllm", *args]
    vllm_args.parse_args()


class ReachedModelDownload(Exception):
    """Raised where the SGLang worker would download the model: every argument was accepted."""


def dynamo_sglang(args):
    from dynamo.sglang import args as sglang_args

    async def stop(_model_path, *_args, **_kwargs):
        raise ReachedModelDownload()

    sglang_args.fetch_model = stop
    try:
        asyncio.run(sglang_args.parse_args(list(args)))
    except ReachedModelDownload:
        return
    raise AssertionError("dynamo.sglang.args.parse_args returned before it reached the model download")


def vllm_server_parser():
    vllm_platform()
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    try:  # vLLM >= 0.31: the server's parser moved to the launchers (openai.api_server is a deprecated shim)
        from vllm.entrypoints.launchers.cli_args import make_arg_parser
    except ImportError:
        from vllm.entrypoints.openai.cli_args import make_arg_parser
    return make_arg_parser(FlexibleArgumentParser(description="vLLM serving server"))


def vllm_serve(args):
    parsed = vllm_server_parser().parse_args(args)
    names = [arg[2:].replace("-", "_") for arg in args if arg.startswith("--")] + ["model_tag"]
    return {name: getattr(parsed, name) for name in names if name != "model_tag" or parsed.model_tag is not None}


def kaito_vllm(args):
    import yaml

    config = yaml.safe_load(args[0])
    runtime_args = []
    for key, value in config.get("vllm", {}).items():
        runtime_args.append(f"--{key}")
        runtime_args.append(str(value))
    parsed = vllm_server_parser().parse_args(runtime_args)
    values = {key: getattr(parsed, key.replace("-", "_")) for key in config.get("vllm", {})}
    if getattr(parsed, "model_tag", None) is not None:  # vllm serve's positional model argument
        values["model_tag"] = parsed.model_tag
    return values


def module(args):
    import importlib.util

    if importlib.util.find_spec(f"{args[0]}.__main__") is None:
        raise ValueError(f"python -m {args[0]}: no {args[0]}.__main__ module")


PARSERS = {
    "module": module,
    "frontend": frontend,
    "dynamo-vllm": dynamo_vllm,
    "dynamo-sglang": dynamo_sglang,
    "kaito-vllm": kaito_vllm,
    "vllm-serve": vllm_serve,
}


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
    argv = list(sys.argv)  # the parsers name themselves after sys.argv[0], which the Dynamo cases set
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            values = PARSERS[case["parser"]](case["args"])
        said = sorted({f"{w.category.__name__}: {w.message}" for w in caught if issubclass(w.category, (FutureWarning, DeprecationWarning))
                       and "/dynamo/" in w.filename})
        return {"id": case["id"], "ok": True, "error": None, "values": values, "deprecations": said}
    except SystemExit as e:
        # argparse prints the usage, then "<prog>: error: <what>" as the last line.
        said = [line for line in stderr.getvalue().splitlines() if ": error: " in line] + errors.messages
        return {"id": case["id"], "ok": False, "error": f"exit {e.code}: {'; '.join(said)}", "values": None, "deprecations": None}
    except Exception as e:  # the parsers' own validation errors (ValueError and the like)
        return {"id": case["id"], "ok": False, "error": f"{type(e).__name__}: {e}", "values": None, "deprecations": None}
    finally:
        logging.getLogger().removeHandler(errors)
        sys.argv = argv


if __name__ == "__main__":
    for line in sys.stdin:
        results = [check(case) for case in json.loads(line)]
        sys.stdout.write(json.dumps(results, default=str) + "\n")
        sys.stdout.flush()
