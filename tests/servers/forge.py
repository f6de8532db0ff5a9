"""What the GitHub and GitLab stand-ins share (python3 stdlib only).

A stand-in keeps its comments (or notes) and commit statuses in a State,
written to DIR/state.json and DIR/statuses.json after every change.  Its
handler subclasses ForgeHandler, which logs every request to
DIR/requests.log as one JSON line (method, path, query, status, and what
log_fields adds; never a token), answers in JSON, and reads and checks
what both APIs take: a comment's JSON body, paging, a commit status.
Each forge words and codes its refusals its own way: the subclass says
how in REFUSE.  take_file() reads a one-shot instruction a test left in
DIR (another job's comment made at the same moment as the next one, a
refused DELETE, another job's edit and status landing just before our
status).  Requests are served at once, each on its own thread, but one
at a time (every do_* method holds GATE), so a stand-in answers as if
alone; edit_in_order() holds some edits back until others have arrived,
so that the edits of jobs running at once land in the order a test
asks for, and hold_edit() holds one edit until the test releases it (an
edit slower than another job's whole run).  run() listens on 127.0.0.1 on a free port and writes it to
DIR/port; with FORGE_TLS_CERT and FORGE_TLS_KEY in its environment (PEM
files) it speaks HTTPS, as a self-hosted forge behind an internal CA
does.
"""
import json
import os
import re
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from faults import serve


class State:
    """The comments and statuses a stand-in holds, saved atomically."""

    def __init__(self, directory, comments=()):
        self.dir = directory
        self.comments = list(comments)
        self.statuses = []

    def _write(self, name, obj):
        tmp = os.path.join(self.dir, name + ".tmp")
        with open(tmp, "w") as f:
            json.dump(obj, f)
        os.replace(tmp, os.path.join(self.dir, name))

    def save(self):
        self._write("state.json", self.comments)
        self._write("statuses.json", self.statuses)


# held by every request while it is served (released while an edit
# waits its turn in edit_in_order)
GATE = threading.Condition()


def _one_at_a_time(method):
    def serve_alone(self):
        with GATE:
            return method(self)
    return serve_alone


class EditOrder:
    """The edits a test asked to land in an order (edit_in_order)."""
    order = None      # the texts, in the order their edits land
    arrived = set()   # indexes of the edits that arrived
    landed = 0        # how many have landed


class ForgeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    dir = None  # set by run()
    state = None  # set by run()
    BODY_MAX = 65536
    # refusal kind -> (status, key of the JSON answer, message; "{}" is
    # the field's name)
    REFUSE = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("do_GET", "do_POST", "do_PUT", "do_PATCH",
                     "do_DELETE"):
            if name in cls.__dict__:
                setattr(cls, name, _one_at_a_time(cls.__dict__[name]))

    def log_message(self, *args):
        pass

    def edit_in_order(self, body):
        """Edits of jobs running at once, landing in a given order: while
        DIR/edit-order holds a JSON list of texts, an edit whose body
        holds one of them waits until an edit for each text has arrived
        (every job listed the comments before any of these edits landed),
        then they land in the list's order, whatever order they came in.
        Each arrival is appended to DIR/edits-waiting.  Called with GATE
        held, before the edit is made; 60 s without the others: it lands
        anyway, said on stderr (the test's checks then fail)."""
        if EditOrder.order is None:
            text = self.take_file("edit-order")
            EditOrder.order = json.loads(text) if text else []
        order = EditOrder.order
        mine = [i for i, t in enumerate(order)
                if t in body and i not in EditOrder.arrived]
        if not mine:
            return
        i = mine[0]
        EditOrder.arrived.add(i)
        with open(os.path.join(self.dir, "edits-waiting"), "a") as f:
            f.write("%d\n" % i)
        GATE.notify_all()
        if not GATE.wait_for(lambda: len(EditOrder.arrived) == len(order)
                             and EditOrder.landed == i, timeout=60):
            print("edit-order: edit %d landed without its turn" % i,
                  file=sys.stderr)
        EditOrder.landed = i + 1
        GATE.notify_all()

    def hold_edit(self, body):
        """An edit slow from its list to its landing: while DIR/hold-edit
        holds a text, the next edit whose body holds it is held (other
        requests are served meanwhile) until the test makes
        DIR/release-edit, then lands; "held" is appended to DIR/edit-held
        when it starts waiting.  Both files are removed once used.  Called
        with GATE held, before the edit is made; 60 s without the release:
        it lands anyway, said on stderr (the test's checks then fail)."""
        path = os.path.join(self.dir, "hold-edit")
        try:
            with open(path) as f:
                text = f.read()
        except FileNotFoundError:
            return
        if not text or text not in body:
            return
        os.remove(path)
        with open(os.path.join(self.dir, "edit-held"), "a") as f:
            f.write("held\n")
        deadline = time.monotonic() + 60
        while self.take_file("release-edit") is None:
            if time.monotonic() > deadline:
                print("hold-edit: the held edit landed without its release",
                      file=sys.stderr)
                return
            GATE.wait(0.05)   # lets the other jobs' requests in

    def log_fields(self):
        """More fields for the request's log line."""
        return {}

    def log_request_line(self, status):
        u = urlsplit(self.path)
        line = {"method": self.command, "path": u.path, "query": u.query}
        line.update(self.log_fields())
        line["status"] = status
        with open(os.path.join(self.dir, "requests.log"), "a") as f:
            f.write(json.dumps(line) + "\n")

    def answer(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.log_request_line(status)

    def no_content(self):
        """204 without a body: what both forges answer a DELETE."""
        self.send_response(204)
        self.end_headers()
        self.log_request_line(204)

    def take_file(self, name):
        """The text of DIR/name, which is removed, or None when there is
        none: a one-shot instruction from the test."""
        path = os.path.join(self.dir, name)
        try:
            with open(path) as f:
                text = f.read()
        except FileNotFoundError:
            return None
        os.remove(path)
        return text

    def other_job_status(self):
        """Another job of the same head that edited our comment and set
        its commit status just before the status now asked for (its
        status lands first, ours after), when DIR/other-before-status
        asks for it: JSON {"comment": ID, "body": TEXT, "status": {...}},
        the comment's new body and the status as stored."""
        text = self.take_file("other-before-status")
        if text is None:
            return
        other = json.loads(text)
        for c in self.state.comments:
            if c["id"] == other["comment"]:
                c["body"] = other["body"]
        self.state.statuses.append(other["status"])
        self.state.save()

    def refuse(self, kind, field=""):
        status, key, message = self.REFUSE[kind]
        self.answer(status, {key: message.format(field)})

    def read_json(self):
        """The request's JSON body; None once refused."""
        n = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(n))
        except ValueError:
            self.refuse("json")
            return None

    def comment_body(self):
        """The "body" of a comment's JSON request; None once refused."""
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        if not self.headers.get("Content-Type", "").startswith(
                "application/json"):
            return self.refuse("content_type")
        try:
            body = json.loads(raw)
        except ValueError:
            return self.refuse("json")
        if not isinstance(body, dict) or not isinstance(body.get("body"),
                                                        str):
            return self.refuse("no_body")
        if len(body["body"]) > self.BODY_MAX:
            return self.refuse("too_long")
        return body["body"]

    def page(self, items, query, per_page_default):
        """The page of items the query asks for; None once refused."""
        per_page = int(query.get("per_page", [str(per_page_default)])[0])
        page = int(query.get("page", ["1"])[0])
        if per_page > 100 or page < 1:
            return self.refuse("paging")
        return items[(page - 1) * per_page: page * per_page]

    def status_body(self, states, allowed, strings):
        """A commit status request's body, checked as both APIs document
        it: a state among states, no field outside allowed, the strings
        strings, an http(s) target_url.  None once refused."""
        body = self.read_json()
        if body is None:
            return None
        if not isinstance(body, dict) or body.get("state") not in states:
            return self.refuse("state")
        if set(body) - allowed:
            return self.refuse("unknown")
        for k in strings:
            if k in body and not isinstance(body[k], str):
                return self.refuse("not_string", k)
        url = body.get("target_url", "")
        if url and not re.match(r"https?://", url):
            return self.refuse("url")
        return body


def read_heads(path):
    """The pull (merge) requests' head commits a test wrote to path, as
    {"number": sha}; none when there is no such file."""
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def run(handler, state):
    """Serves handler on 127.0.0.1 with state in state.dir, forever."""
    handler.dir = state.dir
    handler.state = state
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    cert, key = os.environ.get("FORGE_TLS_CERT"), os.environ.get("FORGE_TLS_KEY")
    if cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    state.save()
    serve(server, os.path.join(state.dir, "port"))
