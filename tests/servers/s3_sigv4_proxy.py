#!/usr/bin/env python3
"""An AWS Signature V4 checking proxy in front of s3rver.

  s3_sigv4_proxy.py --upstream PORT --port-file F --key ID --secret S
                    [--faults SPEC] [--torn-get TEXT:N]

s3rver 3.x checks only the access key id of a V4 request, not its
signature ("Signature version 4 calculation is unimplemented" in its
authentication middleware), so this proxy does the checking the real S3
does: it recomputes the signature of each request from the canonical
request (method, path as sent, query, signed headers, payload hash) with
the secret key, compares it, checks x-amz-content-sha256 against the body,
and answers 403 SignatureDoesNotMatch (S3's XML error) when anything is
off.  Good requests are forwarded to s3rver on 127.0.0.1:PORT unchanged
(Host included, so virtual-host requests stay virtual-host).  s3rver
ignores If-Match and If-None-Match on PUT; S3 honours them (conditional
writes, 2024): the proxy checks them against the object's ETag under one
lock for check and write, and answers 412 PreconditionFailed when they do
not hold, as S3 does.  --torn-get cuts the body of the first N GETs of a
path containing TEXT in half, keeping the ETag: what s3rver itself serves
while another PUT of that object is still being written.  Binds
127.0.0.1 port 0, writes its port to F, logs "METHOD PATH STATUS" per
request to stdout.
"""

import argparse
import hashlib
import hmac
import http.client
import os
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import Faults, serve  # noqa: E402

LOG_LOCK = threading.Lock()
PUT_LOCK = threading.Lock()   # a conditional PUT's check and write


def log_line(text):
    with LOG_LOCK:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def _hmac(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def _canonical_query(query):
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    enc = [(urllib.parse.quote(k, safe="-_.~"),
            urllib.parse.quote(v, safe="-_.~")) for k, v in pairs]
    return "&".join("%s=%s" % kv for kv in sorted(enc))


def check_signature(method, target, headers, body, keys):
    """None when the request is correctly signed, else why not."""
    auth = headers.get("Authorization") or ""
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return "not signed with AWS4-HMAC-SHA256"
    parts = {}
    for item in auth[len("AWS4-HMAC-SHA256 "):].split(","):
        name, _, value = item.strip().partition("=")
        parts[name] = value
    try:
        key_id, date, region, service, term = parts["Credential"].split("/")
        signed = parts["SignedHeaders"].split(";")
        given = parts["Signature"]
    except (KeyError, ValueError):
        return "malformed Authorization"
    if key_id not in keys:
        return "unknown access key id"
    if term != "aws4_request" or service != "s3":
        return "bad credential scope"
    for required in ("host", "x-amz-date", "x-amz-content-sha256"):
        if required not in signed:
            return "%s is not signed" % required
    payload = headers.get("x-amz-content-sha256") or ""
    if payload != "UNSIGNED-PAYLOAD" and \
       payload != hashlib.sha256(body).hexdigest():
        return "x-amz-content-sha256 does not match the body"
    amz_date = headers.get("x-amz-date") or ""
    if not amz_date.startswith(date):
        return "x-amz-date does not match the credential scope"
    path, _, query = target.partition("?")
    canon_headers = "".join(
        "%s:%s\n" % (h, " ".join((headers.get(h) or "").split()))
        for h in signed)
    canonical = "\n".join([method, path, _canonical_query(query),
                           canon_headers, ";".join(signed), payload])
    scope = "/".join([date, region, service, term])
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                         hashlib.sha256(canonical.encode()).hexdigest()])
    k = _hmac(("AWS4" + keys[key_id]).encode(), date)
    for step in (region, service, term):
        k = _hmac(k, step)
    want = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, given):
        return "signature mismatch"
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def _answer(self, status, headers, body):
        # logged before the answer leaves, so the log keeps request order
        log_line("%s %s %d" % (self.command, self.path, status))
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "connection",
                                    "transfer-encoding", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _handle(self):
        consumed = self.server.faults.apply(self)
        if consumed:
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        why = check_signature(self.command, self.path, self.headers, body,
                              self.server.keys)
        if why:
            xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>"
                   "<Code>SignatureDoesNotMatch</Code><Message>The request "
                   "signature we calculated does not match the signature "
                   "you provided (%s).</Message></Error>" % why).encode()
            self._answer(403, [("Content-Type", "application/xml")], xml)
            return
        fwd = {k: v for k, v in self.headers.items()
               if k.lower() not in ("connection", "expect",
                                    "transfer-encoding")}
        fwd["Content-Length"] = str(len(body))
        conditional = self.command == "PUT" and (
            "If-Match" in self.headers or "If-None-Match" in self.headers)
        if not conditional:
            status, headers, data = self._forward(self.command, body, fwd)
            if self.command == "GET" and status == 200 and self._torn():
                # what a store serving an object while a PUT of it is still
                # being written gives (s3rver does): half the bytes, with
                # the object's ETag
                data = data[:len(data) // 2]
                log_line("GET %s torn" % self.path)
            self._answer(status, headers, data)
            return
        with PUT_LOCK:
            status, headers, data = self._forward("HEAD", b"", {
                k: v for k, v in fwd.items() if k.lower() not in (
                    "if-match", "if-none-match", "content-length",
                    "content-type", "content-encoding")})
            etag = dict((k.lower(), v) for k, v in headers).get("etag")
            etag = etag.strip('"') if status == 200 and etag else None
            want = self.headers.get("If-Match")
            none = self.headers.get("If-None-Match")
            if ((want is not None and want.strip('"') != etag) or
                    (none is not None and etag is not None)):
                xml = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       b"<Error><Code>PreconditionFailed</Code><Message>At "
                       b"least one of the pre-conditions you specified did "
                       b"not hold</Message></Error>")
                self._answer(412, [("Content-Type", "application/xml")],
                             xml)
                return
            answer = self._forward("PUT", body, fwd)
        self._answer(*answer)

    def _torn(self):
        """Whether this GET is one --torn-get asks to cut short."""
        torn = self.server.torn
        with PUT_LOCK:
            if torn["left"] > 0 and torn["match"] and \
                    torn["match"] in self.path:
                torn["left"] -= 1
                return True
        return False

    def _forward(self, method, body, headers):
        conn = http.client.HTTPConnection("127.0.0.1", self.server.upstream,
                                          timeout=30)
        conn.request(method, self.path, body=body or None, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, resp.getheaders(), data

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = _handle


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError,
                                          ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--upstream", type=int, required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--secret", required=True)
    ap.add_argument("--faults", default="")
    ap.add_argument("--torn-get", default="", metavar="TEXT:N",
                    help="the first N GETs of a path containing TEXT get "
                    "half the object's bytes (a read during a write)")
    args = ap.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    server.upstream = args.upstream
    server.keys = {args.key: args.secret}
    match, _, count = args.torn_get.rpartition(":")
    server.torn = {"match": match, "left": int(count) if match else 0}
    server.faults = Faults(args.faults, on_fault=lambda item, method, path:
                           log_line("%s %s fault %s" % (method, path, item)))
    serve(server, args.port_file)


if __name__ == "__main__":
    main()
