"""Fault injection for the test servers (python3 stdlib only).

Faults(spec) takes a comma list applied to successive requests, one item
per request; once the list is used up every request is answered normally.

  ok        answer normally
  NNN       answer status NNN with the JSON body {"message": "injected NNN"}
  echo:NNN  answer status NNN with a message that repeats every request
            header back (as a careless proxy's error page does)
  echo:NNN:P the same, the message starting with P bytes of filler and
            the Authorization header's value (so that a cut of the
            message can fall inside the credentials)
  429:S     answer 429 with "Retry-After: S" (and the JSON body)
  hang:S    sleep S seconds (past the client's timeout), then answer normally
  truncate  answer 200 with a Content-Length larger than the body sent, then
            close the connection
  drop      close the connection without answering
  endless   answer 200 with a chunked body that never ends (64 KiB chunks
            until the client closes the connection)
  bigheaders answer 200 with header lines that never end (1 KiB each,
            until the client closes the connection)

Use it at the top of each do_X of a BaseHTTPRequestHandler:

    if FAULTS.apply(self):
        return

apply() returns True when it answered (consumed) the request itself, and
sets handler.fault to the item applied ("ok" for a normal request).
faults.log lists (item, method, path) for every request apply() saw, the
item being "ok" for normal ones; Faults(spec, on_fault=f) also calls
f(item, method, path) for each injected fault as it starts (before a hang
sleeps).  Safe with ThreadingHTTPServer.

serve(server, port_file) is how every test server starts: it writes the
port it got (bound to port 0) to port_file atomically, for the test to
read, and serves until interrupted.
"""

import json
import os
import threading
import time


def _parse_item(item):
    item = item.strip()
    if item in ("ok", "truncate", "drop", "endless", "bigheaders"):
        return (item, None)
    if item.startswith("echo:"):
        code, _, pad = item[5:].partition(":")
        if (len(code) == 3 and code.isdigit() and 400 <= int(code) <= 599
                and (not pad or pad.isdigit())):
            return ("echo", (int(code), int(pad or 0)))
        raise ValueError("faults: bad status or filler in %r" % item)
    if item.startswith("hang:") or item.startswith("429:"):
        head, _, arg = item.partition(":")
        try:
            seconds = float(arg)
        except ValueError:
            raise ValueError("faults: bad seconds in %r" % item) from None
        if seconds < 0:
            raise ValueError("faults: negative seconds in %r" % item)
        return (head, seconds)
    if len(item) == 3 and item.isdigit() and 100 <= int(item) <= 599:
        return ("status", int(item))
    raise ValueError("faults: unknown item %r (ok, NNN, echo:NNN, 429:S, "
                     "hang:S, truncate, drop, endless, bigheaders)" % item)


class Faults:
    def __init__(self, spec="", on_fault=None):
        self._items = []
        for raw in (spec or "").split(","):
            if raw.strip():
                self._items.append((raw.strip(), _parse_item(raw)))
        self._next = 0
        self._lock = threading.Lock()
        self._on_fault = on_fault
        self.log = []

    def pending(self):
        """How many items have not been applied yet."""
        with self._lock:
            return len(self._items) - self._next

    def _take(self, method, path):
        with self._lock:
            if self._next < len(self._items):
                text, item = self._items[self._next]
                self._next += 1
            else:
                text, item = "ok", ("ok", None)
            self.log.append((text, method, path))
        if self._on_fault and text != "ok":
            self._on_fault(text, method, path)
        return text, item

    @staticmethod
    def _drain(handler):
        """Read the request body so closing the socket does not reset it
        before the client has read our answer."""
        try:
            length = int(handler.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        while length > 0:
            chunk = handler.rfile.read(min(length, 65536))
            if not chunk:
                break
            length -= len(chunk)

    @staticmethod
    def _error(handler, status, retry_after=None, message=None):
        if message is None:
            message = "injected %d" % status
        body = json.dumps({"message": message}).encode()
        handler.send_response(status)
        if retry_after is not None:
            handler.send_header("Retry-After", "%g" % retry_after)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(body)
        handler.close_connection = True

    def apply(self, handler):
        text, (kind, arg) = self._take(handler.command, handler.path)
        handler.fault = text
        if kind == "ok":
            return False
        if kind == "hang":
            time.sleep(arg)
            return False
        self._drain(handler)
        if kind == "status":
            self._error(handler, arg)
        elif kind == "echo":
            status, pad = arg
            sent = "; ".join("%s: %s" % kv for kv in handler.headers.items())
            lead = ""
            if pad:
                lead = "x" * pad + (handler.headers.get("Authorization")
                                    or "") + "; "
            self._error(handler, status,
                        message=lead + "rejected, you sent " + sent)
        elif kind == "429":
            self._error(handler, 429, retry_after=arg)
        elif kind == "truncate":
            body = b'{"truncated": '
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(body) + 1000))
            handler.send_header("Connection", "close")
            handler.end_headers()
            handler.wfile.write(body)
            handler.wfile.flush()
            handler.close_connection = True
        elif kind == "drop":
            handler.close_connection = True
        elif kind in ("endless", "bigheaders"):
            self._endless(handler, kind)
        return True

    @staticmethod
    def _endless(handler, kind):
        """Stream until the client hangs up (16 GiB at most)."""
        handler.close_connection = True
        sent = 0
        try:
            handler.send_response(200)
            if kind == "endless":
                handler.send_header("Transfer-Encoding", "chunked")
                handler.end_headers()
                chunk = b"x" * 65536
                frame = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
                while sent < 1 << 34:
                    handler.wfile.write(frame)
                    sent += len(chunk)
            else:
                line = b"X-Filler: " + b"y" * 1000 + b"\r\n"
                handler.flush_headers()
                while sent < 1 << 34:
                    handler.wfile.write(line)
                    sent += len(line)
        except (BrokenPipeError, ConnectionResetError):
            pass



def serve(server, port_file):
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(tmp, port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
