#!/usr/bin/env python3
"""A Bencher API stand-in for the publishing tests (python3 + jsonschema).

  bencher_standin.py --openapi OPENAPI.json --bmf-schema BMF.json
                     --port-file F --log LOG --token T
                     [--port N] [--faults SPEC] [--faults-after SPEC]
                     [--fault-path PATH]

Binds 127.0.0.1 on a free port and writes the port to F (atomically).
Every request body is validated against Bencher's own OpenAPI document
(OpenAPI 3.0: $ref resolved, `nullable: true` turned into JSON Schema,
formats uuid and date-time checked) and each BMF string of a report
against the BMF schema:

  POST /v0/run                      JsonNewRun -> 201 JsonReport (the answer
                                    is validated against JsonReport too);
                                    a repeated idempotency_key answers the
                                    report it already made, not stored twice.
                                    As Bencher, its uuids are stable: one
                                    per project for each branch, testbed,
                                    benchmark name and measure slug (a
                                    created measure's own); a branch's head
                                    is kept until a start point with reset
                                    replaces it
  POST /v0/projects/{p}/measures    JsonNewMeasure -> 201 JsonMeasure, 409
                                    when the project has that slug
  POST /compressed-store            the Firefox Profiler's public store:
                                    needs its Accept header and a gzipped
                                    profile; answers a JWT with profileToken
                                    (--faults-after: stored, the answer
                                    lost)

A request without "Authorization: Bearer T" gets 401 (the Firefox store
needs none); an invalid body 400 with a JSON Error body.  --faults applies
a faults.py spec before a request is looked at, --faults-after after a
valid report or measure was recorded (so its answer is lost: the retry
must not make a second report); with --fault-path only requests for that
path take faults.  POST /_control {"faults": SPEC, "faults_after": SPEC,
"fault_path": PATH, "reset": true} changes them for the next requests
(reset: forget the log, reports and measures), so that one stand-in
serves several cases.  --port binds that port instead of a free one (a test
that was refused there first).  Every request, valid or not, is
recorded in LOG (a JSON list, rewritten after each request).
"""

import argparse
import base64
import gzip
import io
import json
import os
import re
import sys
import threading
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import Faults, serve  # noqa: E402

UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                     r"[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
DATE_TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}"
                          r"(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
HASH_RE = re.compile(r"^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$")
FIREFOX_ACCEPT = "application/vnd.firefox-profiler+json;version=1.0"

FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("uuid")
def is_uuid(value):
    return not isinstance(value, str) or bool(UUID_RE.match(value))


@FORMATS.checks("date-time")
def is_date_time(value):
    if not isinstance(value, str):
        return True
    if not DATE_TIME_RE.match(value):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00")
                               .replace("z", "+00:00"))
    except ValueError:
        return False
    return True


def translate(node):
    """OpenAPI 3.0 schema objects -> JSON Schema: `nullable: true` becomes
    a null alternative; everything else is kept."""
    if isinstance(node, list):
        return [translate(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: translate(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable") is True:
        if "type" in out and "allOf" not in out and "$ref" not in out:
            t = out["type"]
            out["type"] = (t if isinstance(t, list) else [t]) + ["null"]
            if "enum" in out:
                out["enum"] = list(out["enum"]) + [None]
        else:
            out = {"anyOf": [{"type": "null"}, out]}
    return out


class Contract:
    def __init__(self, openapi, bmf_schema):
        with open(openapi) as f:
            doc = json.load(f)
        self.components = translate(doc["components"])
        with open(bmf_schema) as f:
            self.bmf = jsonschema.Draft7Validator(json.load(f),
                                                  format_checker=FORMATS)
        self.validators = {}

    def validator(self, name):
        if name not in self.validators:
            schema = {"$ref": "#/components/schemas/" + name,
                      "components": self.components}
            self.validators[name] = jsonschema.Draft202012Validator(
                schema, format_checker=FORMATS)
        return self.validators[name]

    def errors(self, name, body):
        return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or
                            "(body)", e.message)
                for e in self.validator(name).iter_errors(body)]


class State:
    def __init__(self, args):
        self.args = args
        self.contract = Contract(args.openapi, args.bmf_schema)
        self.faults = Faults(args.faults, on_fault=self.fault_started)
        self.after = Faults(args.faults_after, on_fault=self.fault_started)
        self.fault_path = args.fault_path
        self.lock = threading.Lock()
        self.log = []
        self.reports = {}     # idempotency key -> JsonReport
        self.measures = {}    # (project, slug) -> JsonMeasure
        self.project_uuid = {}
        self.uuids = {}       # (kind, project, name) -> uuid, stable
        self.heads = {}       # (project, branch) -> JsonHead

    def fault_started(self, item, method, path):
        """Logged as a fault begins: a test can act while a hang lasts."""
        self.record({"fault_started": item, "method": method,
                     "request_path": path})

    def record(self, entry):
        with self.lock:
            self.log.append(entry)
            tmp = self.args.log + ".tmp"
            with open(tmp, "w") as f:
                json.dump(self.log, f, indent=1)
            os.replace(tmp, self.args.log)


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "bencher-standin"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, obj, entry):
        body = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
        entry["status"] = status
        STATE.record(entry)  # first: the client may have gone (a hang)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, message, entry):
        entry.setdefault("errors", []).append(message)
        self.answer(status, {"message": message, "error_code": str(status),
                             "request_id": str(uuid.uuid4())}, entry)

    def lost_answer(self, entry):
        """--faults-after: the request was taken, its answer goes wrong."""
        if STATE.fault_path not in (None, self.path):
            return False
        saved = self.rfile
        self.rfile = io.BytesIO(b"")  # the body was read already
        try:
            done = STATE.after.apply(self)
        finally:
            self.rfile = saved
        entry["fault_after"] = self.fault
        if done:
            entry["status"] = "fault"
            STATE.record(entry)
        return done

    def do_GET(self):
        self.do_POST()

    def control(self):
        length = int(self.headers.get("Content-Length") or 0)
        c = json.loads(self.rfile.read(length) or b"{}")
        with STATE.lock:
            STATE.faults = Faults(c.get("faults", ""),
                                  on_fault=STATE.fault_started)
            STATE.after = Faults(c.get("faults_after", ""),
                                 on_fault=STATE.fault_started)
            STATE.fault_path = c.get("fault_path")
            if c.get("reset"):
                STATE.log = []
                STATE.reports = {}
                STATE.measures = {}
                STATE.heads = {}
        STATE.record({"control": c})
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        if self.path == "/_control":
            return self.control()
        entry = {"method": self.command, "path": self.path,
                 "time": now()}
        targeted = STATE.fault_path in (None, self.path)
        self.fault = "ok"
        if targeted and STATE.faults.apply(self):
            entry["fault"] = self.fault
            entry["status"] = "fault"
            STATE.record(entry)
            return
        entry["fault"] = self.fault
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        entry["content_type"] = self.headers.get("Content-Type")
        if self.command != "POST":
            return self.error(405, "only POST here", entry)
        if self.path == "/compressed-store":
            return self.firefox(raw, entry)
        auth = self.headers.get("Authorization")
        entry["auth_ok"] = auth == "Bearer " + STATE.args.token
        if not entry["auth_ok"]:
            return self.error(401, "missing or wrong bearer token", entry)
        try:
            body = json.loads(raw)
        except ValueError as e:
            entry["body_text"] = raw.decode("utf-8", "replace")
            return self.error(400, "body is not JSON: %s" % e, entry)
        entry["body"] = body
        m = re.fullmatch(r"/v0/projects/([^/?]+)/measures", self.path)
        if self.path == "/v0/run":
            return self.run(body, entry)
        if m:
            return self.measure(m.group(1), body, entry)
        return self.error(404, "no route for %s" % self.path, entry)

    def run(self, body, entry):
        errors = STATE.contract.errors("JsonNewRun", body)
        if isinstance(body, dict):
            for name in ("hash",):
                if body.get(name) is not None and \
                        not HASH_RE.match(str(body[name])):
                    errors.append("%s: not a full git hash" % name)
            sp = body.get("start_point") or {}
            if sp.get("hash") is not None and not HASH_RE.match(sp["hash"]):
                errors.append("start_point/hash: not a full git hash")
            if sp and sp.get("hash") is not None and not sp.get("branch"):
                errors.append("start_point/hash requires start_point/branch")
            for i, text in enumerate(body.get("results") or []):
                try:
                    bmf = json.loads(text)
                except (TypeError, ValueError) as e:
                    errors.append("results/%d: not JSON: %s" % (i, e))
                    continue
                errors += ["results/%d: %s" % (i, e.message)
                           for e in STATE.contract.bmf.iter_errors(bmf)]
            if not body.get("results"):
                errors.append("results: empty")
        entry["valid"] = not errors
        if errors:
            entry["errors"] = errors
            return self.error(400, "; ".join(errors), entry)
        key = body.get("idempotency_key")
        entry["idempotency_key"] = key
        with STATE.lock:
            report = STATE.reports.get(key) if key else None
            entry["repeat"] = report is not None
            if report is None:
                report = make_report(body)
                if key:
                    STATE.reports[key] = report
        entry["report_uuid"] = report["uuid"]
        entry["answer"] = report   # tests check what clients kept of it
        answer_errors = STATE.contract.errors("JsonReport", report)
        if answer_errors:  # our own bug: say so loudly
            return self.error(500, "stand-in answer invalid: %s" %
                              answer_errors, entry)
        if self.lost_answer(entry):
            return
        self.answer(201, report, entry)

    def measure(self, project, body, entry):
        errors = STATE.contract.errors("JsonNewMeasure", body)
        for name in ("name", "slug", "units"):
            if isinstance(body, dict) and len(str(body.get(name) or "")) > 64:
                errors.append("%s: longer than 64 characters" % name)
        entry["valid"] = not errors
        if errors:
            return self.error(400, "; ".join(errors), entry)
        slug = body.get("slug") or body["name"].lower().replace(" ", "-")
        with STATE.lock:
            exists = (project, slug) in STATE.measures
            if not exists:
                t = now()
                STATE.measures[(project, slug)] = {
                    "uuid": str(uuid.uuid4()), "name": body["name"],
                    "slug": slug, "units": body["units"],
                    "project": project_uuid(project),
                    "created": t, "modified": t}
        entry["created"] = not exists
        if exists:
            return self.error(409, "measure '%s' exists" % slug, entry)
        answer = STATE.measures[(project, slug)]
        errs = STATE.contract.errors("JsonMeasure", answer)
        if errs:
            return self.error(500, "stand-in answer invalid: %s" % errs,
                              entry)
        if self.lost_answer(entry):
            return
        self.answer(201, answer, entry)

    def firefox(self, raw, entry):
        entry["accept"] = self.headers.get("Accept")
        if entry["accept"] != FIREFOX_ACCEPT:
            return self.error(400, "wrong Accept header", entry)
        try:
            profile = json.loads(gzip.decompress(raw))
            entry["valid"] = isinstance(profile, dict) and "meta" in profile
        except (OSError, ValueError) as e:
            return self.error(400, "not a gzipped JSON profile: %s" % e,
                              entry)
        if not entry["valid"]:
            return self.error(400, "not a Firefox profile", entry)
        token = uuid.uuid4().hex
        entry["profile_token"] = token
        if self.lost_answer(entry):   # stored, its answer lost
            return

        def b64(obj):
            return base64.urlsafe_b64encode(json.dumps(obj).encode()) \
                .rstrip(b"=")
        jwt = b".".join([b64({"alg": "HS256"}),
                         b64({"profileToken": token, "iat": 0}), b"c2ln"])
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(jwt)))
        self.end_headers()
        self.wfile.write(jwt)
        entry["status"] = 200
        STATE.record(entry)


def project_uuid(project):
    return STATE.project_uuid.setdefault(project, str(uuid.uuid4()))


def stable_uuid(kind, project, name):
    return STATE.uuids.setdefault((kind, project, name), str(uuid.uuid4()))


def slugify(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "x"


def measure_of(project, slug, t):
    """The project's measure with that slug (latency and throughput and
    unknown slugs made on first use, as Bencher does)."""
    m = STATE.measures.get((project, slug))
    if m is None:
        m = STATE.measures[(project, slug)] = {
            "uuid": stable_uuid("measure", project, slug), "name": slug,
            "slug": slug, "units": "units", "project": project_uuid(project),
            "created": t, "modified": t}
    return m


def report_results(project, results, t):
    """JsonReport.results: per iteration, per benchmark, its measures."""
    puuid = project_uuid(project)
    out = []
    for i, bmf in enumerate(results):
        it = []
        for name, measures in bmf.items():
            bench = {"uuid": stable_uuid("benchmark", project, name),
                     "project": puuid, "name": name,
                     "slug": slugify(name)[:64], "created": t,
                     "modified": t}
            ms = [{"measure": measure_of(project, slug, t),
                   "metric": {"uuid": str(uuid.uuid4()),
                              "value": float(v["value"]),
                              "lower_value": v.get("lower_value"),
                              "upper_value": v.get("upper_value")}}
                  for slug, v in measures.items()]
            it.append({"benchmark": bench, "iteration": i, "measures": ms})
        out.append(it)
    return out


def make_report(body):
    t = now()
    project = body.get("project") or "project"
    puuid = project_uuid(project)
    branch = body.get("branch") or "main"
    testbed = body.get("testbed") or "localhost"
    results = [json.loads(r) for r in body["results"]]
    version = {"number": 1}
    if body.get("hash"):
        version["hash"] = body["hash"]
    slug = re.sub(r"[^a-z0-9]+", "-", branch.lower()).strip("-") or "main"
    head = STATE.heads.get((project, branch))
    if head is None or (body.get("start_point") or {}).get("reset"):
        head = STATE.heads[(project, branch)] = {
            "uuid": str(uuid.uuid4()), "created": t}
    return {
        "uuid": str(uuid.uuid4()),
        "adapter": (body.get("settings") or {}).get("adapter") or "magic",
        "created": t, "start_time": body["start_time"],
        "end_time": body["end_time"],
        "project": {"uuid": puuid, "name": project, "slug": project,
                    "organization": str(uuid.uuid4()),
                    "visibility": "public", "created": t, "modified": t},
        "branch": {"uuid": stable_uuid("branch", project, branch),
                   "project": puuid, "name": branch, "slug": slug,
                   "created": t, "modified": t,
                   "head": dict(head, version=version)},
        "testbed": {"uuid": stable_uuid("testbed", project, testbed),
                    "project": puuid,
                    "name": testbed, "slug": testbed.lower(),
                    "created": t, "modified": t},
        "results": report_results(project, results, t),
        "alerts": [],
        "counts": {"alerts": {"active": 0, "total": 0},
                   "results": [{"benchmarks": len(r),
                                "measures": len({m for b in r.values()
                                                 for m in b})}
                               for r in results]},
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openapi", required=True)
    ap.add_argument("--bmf-schema", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--faults", default="")
    ap.add_argument("--faults-after", default="")
    ap.add_argument("--fault-path")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    global STATE
    STATE = State(args)
    STATE.record({"started": now()})
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    serve(server, args.port_file)


STATE = None

if __name__ == "__main__":
    main()
