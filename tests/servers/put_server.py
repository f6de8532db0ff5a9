#!/usr/bin/env python3
"""A plain PUT/GET object server for the http(s):// store backend tests.

  put_server.py --root DIR --port-file F [--port N] [--token T]
                [--get-token] [--faults SPEC]
                [--tls-cert PEM --tls-key PEM] [--fail-path TEXT:N]
                [--slow-path TEXT:S]
                [--request-delay-ms MS] [--connect-delay-ms MS]
                [--stats FILE]

Binds 127.0.0.1 on a free port (--port N: on N, the same store started
again after a test stopped it) and writes the port to F (atomically).
PUT stores the body at the URL path (percent-decoded once; a '..' or '.'
segment is refused) and keeps its Content-Type and Content-Encoding in
DIR/.meta/<path>.json; GET answers the object with those headers and
"Access-Control-Allow-Origin: *" and an ETag (a hash of the bytes); a
PUT with If-Match (another ETag, or no object) or If-None-Match: * (an
object there) gets 412, as S3 answers.  With --token, a PUT needs
"Authorization: Bearer T" (401 otherwise); with --get-token as well, a
GET needs it too (a private store).  --faults takes a faults.py
spec.  Each request is logged to stdout as "METHOD PATH STATUS", each
injected fault as "METHOD PATH fault ITEM" when it starts.  With
--tls-cert and --tls-key it speaks HTTPS.

A network farther away: --request-delay-ms adds MS to every request,
--connect-delay-ms MS to the first request of each new connection (a TCP
and TLS handshake).  --fail-path TEXT:N answers 500 to the first N PUTs
whose path contains TEXT, whichever order they come in.  --slow-path
TEXT:S holds every other PUT whose path contains TEXT for S seconds after
its body is read and before its If-Match / If-None-Match is checked
(another writer's object can come in meanwhile), logging "PUT PATH slow"
when the wait starts.  --stats FILE is
rewritten (atomically) after each request with {"connections": accepted
connections, "requests": N, "max_in_flight": the most requests handled
at the same time}.
"""

import argparse
import hashlib
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import Faults, serve  # noqa: E402

LOG_LOCK = threading.Lock()


def log_line(text):
    with LOG_LOCK:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "put_server"

    def log_message(self, fmt, *args):  # quiet: we log our own lines
        pass

    def setup(self):
        super().setup()
        self.server.count("connections")
        self.fresh = True

    def handle_one_request(self):
        """Each request: the network's delays, counted while in flight."""
        srv = self.server
        self.raw_requestline = None
        delay = srv.request_delay + (srv.connect_delay if self.fresh else 0)
        started = False

        def begin():
            nonlocal started
            started = True
            self.fresh = False
            srv.flight(+1)
            if delay:
                time.sleep(delay)
        self.begin_request = begin
        try:
            super().handle_one_request()
        finally:
            if started:
                srv.flight(-1)
                srv.count("requests")

    def parse_request(self):
        ok = super().parse_request()
        if ok:
            self.begin_request()
        return ok

    def _failing_path(self):
        """--fail-path: whether this PUT is one of the first N to fail."""
        srv = self.server
        if not srv.fail_text or srv.fail_text not in self.path:
            return False
        with srv.stats_lock:
            if srv.fail_left <= 0:
                return False
            srv.fail_left -= 1
        return True

    def _object_path(self):
        """The file for the request's path, or None when it is unsafe."""
        raw = urllib.parse.urlsplit(self.path).path
        segments = raw.split("/")[1:]
        if not segments or segments == [""]:
            return None, None
        names = []
        for seg in segments:
            name = urllib.parse.unquote(seg, errors="strict")
            if name in ("", ".", "..") or "/" in name or "\0" in name:
                return None, None
            names.append(name)
        if names[0] == ".meta":
            return None, None
        rel = os.path.join(*names)
        return (os.path.join(self.server.root, rel),
                os.path.join(self.server.root, ".meta", rel + ".json"))

    def _answer(self, status, body=b"", headers=None):
        # logged before the answer leaves: the client's next request (on
        # another thread) can then never be logged ahead of this one
        log_line("%s %s %d" % (self.command, self.path, status))
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status, message):
        self._answer(status, json.dumps({"message": message}).encode(),
                     {"Content-Type": "application/json"})

    def _read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        data = b""
        while len(data) < length:
            chunk = self.rfile.read(length - len(data))
            if not chunk:
                break
            data += chunk
        return data

    def do_PUT(self):
        if self.server.faults.apply(self):
            return
        body = self._read_body()
        if self._failing_path():
            self._error(500, "injected failure of this path")
            return
        srv = self.server
        if srv.slow_text and srv.slow_text in self.path:
            log_line("PUT %s slow" % self.path)
            time.sleep(srv.slow_s)
        token = self.server.token
        if token is not None and \
           self.headers.get("Authorization") != "Bearer " + token:
            self._error(401, "missing or wrong bearer token")
            return
        path, meta = self._object_path()
        if path is None:
            self._error(400, "bad object path")
            return
        if not self._precondition(path):
            self._error(412, "precondition failed")
            return
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.makedirs(os.path.dirname(meta), exist_ok=True)
        for target, data in ((path, body), (meta, json.dumps({
                "content_type": self.headers.get("Content-Type"),
                "content_encoding": self.headers.get("Content-Encoding"),
        }).encode())):
            tmp = target + ".tmp%d" % threading.get_ident()
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, target)
        self._answer(200)

    @staticmethod
    def _etag(path):
        with open(path, "rb") as f:
            return '"%s"' % hashlib.sha256(f.read()).hexdigest()[:16]

    def _precondition(self, path):
        """If-Match / If-None-Match: * as S3 and HTTP servers check them."""
        exists = os.path.isfile(path)
        match = self.headers.get("If-Match")
        none_match = self.headers.get("If-None-Match")
        if match is not None:
            return exists and match.strip() == self._etag(path)
        if none_match is not None and none_match.strip() == "*":
            return not exists
        return True

    def do_GET(self):
        if self.server.faults.apply(self):
            return
        token = self.server.token
        if self.server.get_token and \
           self.headers.get("Authorization") != "Bearer " + token:
            self._error(401, "missing or wrong bearer token")
            return
        path, meta = self._object_path()
        if path is None or not os.path.isfile(path):
            self._error(404, "no such object")
            return
        with open(path, "rb") as f:
            body = f.read()
        headers = {"Access-Control-Allow-Origin": "*", "ETag": self._etag(path)}
        try:
            with open(meta) as f:
                info = json.load(f)
        except FileNotFoundError:
            info = {}
        headers["Content-Type"] = info.get("content_type") or \
            "application/octet-stream"
        if info.get("content_encoding"):
            headers["Content-Encoding"] = info["content_encoding"]
        self._answer(200, body, headers)

    do_HEAD = do_GET


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    stats_lock = threading.Lock()
    stats = {"connections": 0, "requests": 0, "max_in_flight": 0}
    in_flight = 0
    stats_file = None

    def count(self, name):
        with self.stats_lock:
            self.stats[name] += 1
            self._write_stats()

    def flight(self, step):
        with self.stats_lock:
            self.in_flight += step
            self.stats["max_in_flight"] = max(self.stats["max_in_flight"],
                                              self.in_flight)

    def _write_stats(self):
        if self.stats_file:
            tmp = self.stats_file + ".tmp"
            with open(tmp, "w") as f:
                json.dump(self.stats, f)
            os.replace(tmp, self.stats_file)

    def handle_error(self, request, client_address):
        # a client that gave up (timeout, hang fault) is no server error
        if isinstance(sys.exc_info()[1], (BrokenPipeError,
                                          ConnectionResetError,
                                          ssl.SSLError)):
            return
        super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--token")
    ap.add_argument("--get-token", action="store_true")
    ap.add_argument("--faults", default="")
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    ap.add_argument("--fail-path", default="")
    ap.add_argument("--slow-path", default="")
    ap.add_argument("--request-delay-ms", type=float, default=0)
    ap.add_argument("--connect-delay-ms", type=float, default=0)
    ap.add_argument("--stats")
    args = ap.parse_args()

    if args.get_token and args.token is None:
        ap.error("--get-token needs --token")
    server = Server(("127.0.0.1", args.port), Handler)
    server.get_token = args.get_token
    server.root = os.path.abspath(args.root)
    server.token = args.token
    server.request_delay = args.request_delay_ms / 1000
    server.connect_delay = args.connect_delay_ms / 1000
    server.stats_file = args.stats
    text, _, n = args.fail_path.rpartition(":")
    server.fail_text, server.fail_left = (text, int(n)) if text else ("", 0)
    text, _, sec = args.slow_path.rpartition(":")
    server.slow_text, server.slow_s = (text, float(sec)) if text else ("", 0)
    server.faults = Faults(args.faults, on_fault=lambda item, method, path:
                           log_line("%s %s fault %s" % (method, path, item)))
    os.makedirs(server.root, exist_ok=True)
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    serve(server, args.port_file)


if __name__ == "__main__":
    main()
