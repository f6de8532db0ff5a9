#!/usr/bin/env python3
"""A GitLab REST API (v4) stand-in for the merge request note tests.

usage: gitlab_standin.py DIR TOKEN

Listens on 127.0.0.1 on a free port and writes it to DIR/port.  Serves
  GET  /api/v4/projects/{id}/merge_requests/{iid}/notes?per_page=&page=
  POST /api/v4/projects/{id}/merge_requests/{iid}/notes            {"body"}
  PUT  /api/v4/projects/{id}/merge_requests/{iid}/notes/{note_id}  {"body"}
  POST /api/v4/projects/{id}/statuses/{sha}  {"state", "name"?, "context"?,
       "target_url"?, "description"?, "ref"?, "pipeline_id"?, "coverage"?}
       (GitLab's commit status API: state one of pending, running,
       success, failed, canceled, skipped; the statuses are kept in
       DIR/statuses.json)
and authenticates each request as GitLab does for these endpoints: an
access token in PRIVATE-TOKEN (or "Authorization: Bearer"); a CI job
token (JOB-TOKEN) is refused with 401, since the notes API is not among
the endpoints a job token may use.  Every request is appended to
DIR/requests.log as one JSON line (method, path, status, the kind of
credential; never its value) and the notes are kept in DIR/state.json.
"""
import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

DIR, TOKEN = sys.argv[1], sys.argv[2]
NOTES = r"/api/v4/projects/([^/]+)/merge_requests/(\d+)/notes"
notes = []
statuses = []
STATUS = r"/api/v4/projects/([^/]+)/statuses/([0-9a-f]{40}|[0-9a-f]{64})"
next_id = [700]


def save():
    tmp = os.path.join(DIR, "state.json.tmp")
    with open(tmp, "w") as f:
        json.dump(notes, f)
    os.replace(tmp, os.path.join(DIR, "state.json"))
    tmp = os.path.join(DIR, "statuses.json.tmp")
    with open(tmp, "w") as f:
        json.dump(statuses, f)
    os.replace(tmp, os.path.join(DIR, "statuses.json"))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def credential(self):
        if self.headers.get("JOB-TOKEN") is not None:
            return "job-token"
        if self.headers.get("PRIVATE-TOKEN") is not None:
            return "private-token"
        if self.headers.get("Authorization") is not None:
            return "bearer"
        return "none"

    def answer(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        with open(os.path.join(DIR, "requests.log"), "a") as f:
            f.write(json.dumps({"method": self.command,
                                "path": urlsplit(self.path).path,
                                "query": urlsplit(self.path).query,
                                "credential": self.credential(),
                                "status": status}) + "\n")

    def authorized(self):
        ok = (self.headers.get("PRIVATE-TOKEN") == TOKEN or
              self.headers.get("Authorization") == "Bearer " + TOKEN)
        if not ok:
            self.answer(401, {"message": "401 Unauthorized"})
        return ok

    def json_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        if not self.headers.get("Content-Type", "").startswith(
                "application/json"):
            self.answer(415, {"message": "want application/json"})
            return None
        try:
            body = json.loads(raw)
        except ValueError:
            self.answer(400, {"message": "400 Bad request"})
            return None
        if not isinstance(body, dict) or not isinstance(body.get("body"),
                                                        str):
            self.answer(400, {"error": "body is missing"})
            return None
        if len(body["body"]) > 1000000:
            self.answer(400, {"message": "body is too long"})
            return None
        return body["body"]

    def route(self, with_id):
        u = urlsplit(self.path)
        m = re.fullmatch(NOTES + (r"/(\d+)" if with_id else ""), u.path)
        if not m:
            self.answer(404, {"message": "404 Not Found"})
            return None
        if not self.authorized():
            return None
        return m, parse_qs(u.query)

    def do_GET(self):
        r = self.route(False)
        if not r:
            return
        m, q = r
        per_page = int(q.get("per_page", ["20"])[0])
        page = int(q.get("page", ["1"])[0])
        if per_page > 100 or page < 1:
            return self.answer(400, {"message": "bad paging"})
        mine = [n for n in notes
                if n["project"] == m.group(1) and n["mr"] == int(m.group(2))]
        part = mine[(page - 1) * per_page: page * per_page]
        self.answer(200, [{"id": n["id"], "body": n["body"]} for n in part])

    def status(self, project, sha):
        """POST /projects/{id}/statuses/{sha}, as GitLab documents it."""
        if not self.authorized():
            return
        n = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(n))
        except ValueError:
            return self.answer(400, {"message": "400 Bad request"})
        if not isinstance(body, dict) or body.get("state") not in (
                "pending", "running", "success", "failed", "canceled",
                "skipped"):
            return self.answer(400, {"error": "state does not have a "
                                              "valid value"})
        allowed = {"state", "ref", "name", "context", "target_url",
                   "description", "coverage", "pipeline_id"}
        if set(body) - allowed:
            return self.answer(400, {"error": "unknown parameters"})
        for k in ("ref", "name", "context", "target_url", "description"):
            if k in body and not isinstance(body[k], str):
                return self.answer(400, {"error": k + " is invalid"})
        url = body.get("target_url", "")
        if url and not re.match(r"https?://", url):
            return self.answer(400, {"error": "target_url is invalid"})
        body.update(project=project, sha=sha)
        statuses.append(body)
        save()
        self.answer(201, dict(body, id=len(statuses),
                              name=body.get("name") or
                              body.get("context") or "default"))

    def do_POST(self):
        s = re.fullmatch(STATUS, urlsplit(self.path).path)
        if s:
            return self.status(s.group(1), s.group(2))
        r = self.route(False)
        if not r:
            return
        m, _ = r
        body = self.json_body()
        if body is None:
            return
        n = {"id": next_id[0], "project": m.group(1), "mr": int(m.group(2)),
             "body": body}
        next_id[0] += 1
        notes.append(n)
        save()
        self.answer(201, {"id": n["id"], "body": body})

    def do_PUT(self):
        r = self.route(True)
        if not r:
            return
        m, _ = r
        body = self.json_body()
        if body is None:
            return
        for n in notes:
            if n["id"] == int(m.group(3)) and n["mr"] == int(m.group(2)):
                n["body"] = body
                save()
                return self.answer(200, {"id": n["id"], "body": body})
        self.answer(404, {"message": "404 Note Not Found"})


server = HTTPServer(("127.0.0.1", 0), Handler)
save()
with open(os.path.join(DIR, "port.tmp"), "w") as f:
    f.write(str(server.server_address[1]))
os.replace(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
server.serve_forever()
