#!/usr/bin/env python3
"""A GitHub REST API stand-in for the comment tests: issue comments only.

usage: github_standin.py DIR TOKEN [SEED]

Listens on 127.0.0.1 on a free port and writes it to DIR/port.  Serves
  GET   /repos/{o}/{r}/issues/{n}/comments?per_page=&page=
  POST  /repos/{o}/{r}/issues/{n}/comments          {"body": ...}
  PATCH /repos/{o}/{r}/issues/comments/{id}         {"body": ...}
  POST  /repos/{o}/{r}/statuses/{sha}  {"state", "target_url"?,
        "description"?, "context"?} (REST "Create a commit status": state
        one of error, failure, pending, success; sha a full commit hash)
and checks each request the way GitHub would: the bearer token, the JSON
body, per_page at most 100.  Starts with SEED (default 130) comments by
others on issue 5, so finding ours takes more than one page.  Every
request is appended to DIR/requests.log as one JSON line (method, path,
status; never the token) and the comments are kept in DIR/state.json.
While DIR/lose-next-post exists, the next POST makes its comment, then the
file is removed and the connection closed without an answer (logged with
status 0): the answer lost on the way back.
"""
import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

DIR, TOKEN = sys.argv[1], sys.argv[2]
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 130
comments = [{"id": 1000 + i, "issue": 5, "body": "comment %d by someone" % i}
            for i in range(SEED)]
next_id = [5000]
statuses = []


def save():
    tmp = os.path.join(DIR, "state.json.tmp")
    with open(tmp, "w") as f:
        json.dump(comments, f)
    os.replace(tmp, os.path.join(DIR, "state.json"))
    tmp = os.path.join(DIR, "statuses.json.tmp")
    with open(tmp, "w") as f:
        json.dump(statuses, f)
    os.replace(tmp, os.path.join(DIR, "statuses.json"))


def html_url(c):
    return "https://github.example/own/repo/pull/%d#issuecomment-%d" % (
        c["issue"], c["id"])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

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
                                "status": status}) + "\n")

    def authorized(self):
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            self.answer(401, {"message": "Bad credentials"})
            return False
        return True

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
            self.answer(400, {"message": "Problems parsing JSON"})
            return None
        if not isinstance(body, dict) or not isinstance(body.get("body"),
                                                        str):
            self.answer(422, {"message": "body is required"})
            return None
        if len(body["body"]) > 65536:
            self.answer(422, {"message": "body is too long"})
            return None
        return body["body"]

    def do_GET(self):
        u = urlsplit(self.path)
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments", u.path)
        if not m:
            return self.answer(404, {"message": "Not Found"})
        if not self.authorized():
            return
        q = parse_qs(u.query)
        per_page = int(q.get("per_page", ["30"])[0])
        page = int(q.get("page", ["1"])[0])
        if per_page > 100 or page < 1:
            return self.answer(422, {"message": "bad paging"})
        mine = [c for c in comments if c["issue"] == int(m.group(1))]
        part = mine[(page - 1) * per_page: page * per_page]
        self.answer(200, [{"id": c["id"], "body": c["body"],
                           "user": {"login": "x"}} for c in part])

    def status(self, sha):
        """POST /repos/{o}/{r}/statuses/{sha}, as GitHub documents it."""
        if not self.authorized():
            return
        n = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(n))
        except ValueError:
            return self.answer(400, {"message": "Problems parsing JSON"})
        if not isinstance(body, dict) or body.get("state") not in (
                "error", "failure", "pending", "success"):
            return self.answer(422, {"message": "state is required"})
        allowed = {"state", "target_url", "description", "context"}
        if set(body) - allowed:
            return self.answer(422, {"message": "unknown fields"})
        for k in ("target_url", "description", "context"):
            if k in body and not isinstance(body[k], str):
                return self.answer(422, {"message": k + " is not a string"})
        if len(body.get("description", "")) > 140:
            return self.answer(422, {"message": "description is too long"})
        url = body.get("target_url", "")
        if url and not re.match(r"https?://", url):
            return self.answer(422, {"message": "target_url is not a URL"})
        if self.headers.get("Accept") != "application/vnd.github+json":
            return self.answer(415, {"message": "Accept header"})
        body["sha"] = sha
        statuses.append(body)
        save()
        self.answer(201, dict(body, id=len(statuses)))

    def do_POST(self):
        s = re.fullmatch(r"/repos/[^/]+/[^/]+/statuses/([0-9a-f]{40})",
                         self.path)
        if s:
            return self.status(s.group(1))
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments",
                         self.path)
        if not m:
            return self.answer(404, {"message": "Not Found"})
        if not self.authorized():
            return
        body = self.json_body()
        if body is None:
            return
        c = {"id": next_id[0], "issue": int(m.group(1)), "body": body}
        next_id[0] += 1
        comments.append(c)
        save()
        lose = os.path.join(DIR, "lose-next-post")
        if os.path.exists(lose):
            os.remove(lose)
            with open(os.path.join(DIR, "requests.log"), "a") as f:
                f.write(json.dumps({"method": "POST",
                                    "path": urlsplit(self.path).path,
                                    "query": "", "status": 0}) + "\n")
            self.close_connection = True
            return
        self.answer(201, {"id": c["id"], "body": body,
                          "html_url": html_url(c)})

    def do_PATCH(self):
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)",
                         self.path)
        if not m:
            return self.answer(404, {"message": "Not Found"})
        if not self.authorized():
            return
        body = self.json_body()
        if body is None:
            return
        for c in comments:
            if c["id"] == int(m.group(1)):
                c["body"] = body
                save()
                return self.answer(200, {"id": c["id"], "body": body,
                                         "html_url": html_url(c)})
        self.answer(404, {"message": "Not Found"})


server = HTTPServer(("127.0.0.1", 0), Handler)
save()
with open(os.path.join(DIR, "port.tmp"), "w") as f:
    f.write(str(server.server_address[1]))
os.replace(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
server.serve_forever()
