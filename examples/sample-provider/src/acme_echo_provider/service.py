"""The provider's service part: the work the adapter hands off, served over HTTP on ``PROVIDER_PORT``.

A provider whose heavy part cannot run inside the Llama Stack server process (a model, a GPU, its own
dependencies) ships that part in the same image and runs it beside the server: as a sidecar of the
server's pod, or in pods of its own behind a Service. Here the "heavy part" is the echo itself, so that
the tests can tell the service's answer from the in-process one.

The contract with ``LlamaStackWithProviders`` (docs/provider-images.md, "A service part"):

- listen on every address at the port in ``PROVIDER_PORT`` (the construct assigns it: 18000, 18001, ...
  for sidecars, 8080 by default for a service);
- answer the probes: the construct's defaults open a TCP connection to that port; ``GET /healthz``
  is there for an ``httpGet`` probe;
- exit on SIGTERM (the kubelet's stop).

The adapter finds it at ``config.url``, which the merge fills in as ``http://<host>:<port>/v1``: the
metadata (``lls-provider-spec.yaml``) names the key and the path in ``spec.serviceAddress``.

Run it as the image's command: ``python3 -m acme_echo_provider.service``. Standard library only, so the
image needs nothing installed besides its Python.
"""

import json
import os
import signal
import socket
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from acme_text_utils import echo

#: Where the service's API starts: the metadata's ``spec.serviceAddress.path``, so the adapter's
#: ``config.url`` ends in it (``http://localhost:18000/v1``) and the adapter calls routes below it.
API_PATH = "/v1"
#: The route the adapter calls, below ``API_PATH``: ``{"text": ..., "prefix": ...}`` in, ``{"text": ..., "id": ...}`` out.
ECHO_ROUTE = "/echo"
HEALTH_ROUTE = "/healthz"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the adapter reuses its connection
    # Headers and body leave in one write when the request is done (http.server flushes then), and
    # without Nagle's delay: written apart, a small body would wait for the peer's delayed ACK (~40 ms).
    wbufsize = -1
    disable_nagle_algorithm = True

    def do_GET(self):  # noqa: N802 - http.server's naming
        if self.path == HEALTH_ROUTE:
            self.reply(200, {"status": "ok"})
        else:
            self.reply(404, {"error": "not found: GET %s" % self.path})

    def do_POST(self):  # noqa: N802
        if self.path != API_PATH + ECHO_ROUTE:
            self.reply(404, {"error": "not found: POST %s" % self.path})
            return
        try:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            text, prefix = body["text"], body.get("prefix", "")
            if not isinstance(text, str) or not isinstance(prefix, str):
                raise TypeError("text and prefix must be strings")
        except (ValueError, KeyError, TypeError) as e:
            self.reply(400, {"error": "expected {\"text\": <string>, \"prefix\": <string>}: %s" % e})
            return
        # The completion's id names the pod that answered (its hostname), which tells a service's answer
        # from the in-process one, and one replica from another.
        self.reply(200, {"text": echo(text, prefix), "id": "chatcmpl-%s-%s" % (socket.gethostname(), uuid.uuid4().hex)})

    def reply(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):  # noqa: A002 - http.server's signature
        """One line per request would drown the pod's log at load; errors still go to stderr."""


def port_from_env(environ=os.environ):
    raw = environ.get("PROVIDER_PORT", "")
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise SystemExit("acme-echo service: PROVIDER_PORT must be a port number (1-65535), got %r" % raw)
    return int(raw)


def stop(_signum, _frame):
    """SIGTERM (the kubelet stopping the container) ends serve_forever() as Ctrl-C does."""
    raise KeyboardInterrupt


def main():
    port = port_from_env()
    server = ThreadingHTTPServer(("", port), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, stop)
    print("acme-echo service listening on port %d" % port, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
