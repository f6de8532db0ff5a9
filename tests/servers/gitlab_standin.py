#!/usr/bin/env python3
"""A GitLab REST API (v4) stand-in for the merge request note tests.

usage: gitlab_standin.py DIR TOKEN [--other TOKEN2]

Listens on 127.0.0.1 on a free port and writes it to DIR/port.  Serves
  GET  /api/v4/projects/{id}/merge_requests/{iid}/notes?per_page=&page=
  POST /api/v4/projects/{id}/merge_requests/{iid}/notes            {"body"}
  GET  /api/v4/projects/{id}/merge_requests/{iid}/notes/{note_id}  404 when
       none
  PUT  /api/v4/projects/{id}/merge_requests/{iid}/notes/{note_id}  {"body"}
  DELETE /api/v4/projects/{id}/merge_requests/{iid}/notes/{note_id}  204
  POST /api/v4/projects/{id}/statuses/{sha}  {"state", "name"?, "context"?,
       "target_url"?, "description"?, "ref"?, "pipeline_id"?, "coverage"?}
       (GitLab's commit status API: state one of pending, running,
       success, failed, canceled, skipped; the statuses are kept in
       DIR/statuses.json)
  GET  /api/v4/user   the token's user: TOKEN is "benchprof-ci" (id 31);
       --other TOKEN2 is a second user, "mr-author" (id 77)
  GET  /api/v4/projects/{id}/merge_requests/{iid}   {"iid", "sha"}: the
       heads the test wrote in DIR/merge_requests.json ({"7": SHA}); 404
       for others
Notes carry their author ({id, username}) as GitLab's answers do; a PUT
of another user's note is refused with 403, as GitLab does for users who
are not administrators, and so is a DELETE.
While DIR/twin-before-post exists, the next POST of a note first makes a
note of the same user with the file's text as its body (another job's
POST that got in first: a lower id), then its own; DIR/twin-after-post
makes it after its own.  While DIR/refuse-next-delete exists, the next
DELETE is refused with 403.  DIR/fail-next-post holding a status (e.g.
422) answers the next POST of a note with it, as a GitLab that refuses
the note for a reason of its own.  While DIR/other-before-status
exists, the next status POST is preceded by another job's edit of a note
and its own status (forge.py, other_job_status).  DIR/edit-order makes
the PUTs of jobs running at once land in the order it gives (forge.py,
edit_in_order); DIR/hold-edit holds the PUT whose body holds its text
until the test makes DIR/release-edit (forge.py, hold_edit).  Each file
is removed once used.
It authenticates each request as GitLab does for these endpoints: an
access token in PRIVATE-TOKEN (or "Authorization: Bearer"); a CI job
token (JOB-TOKEN) is refused with 401, since the notes API is not among
the endpoints a job token may use.  Every request is appended to
DIR/requests.log as one JSON line (method, path, status, the kind of
credential; never its value) and the notes are kept in DIR/state.json.
"""
import os
import re
import sys
from urllib.parse import parse_qs, urlsplit

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
from forge import ForgeHandler, State, read_heads, run  # noqa: E402

ARGS = sys.argv[1:]
OTHER = None
if "--other" in ARGS:
    i = ARGS.index("--other")
    OTHER = ARGS[i + 1]
    del ARGS[i:i + 2]
DIR, TOKEN = ARGS[0], ARGS[1]
USERS = {TOKEN: {"id": 31, "username": "benchprof-ci"}}
if OTHER:
    USERS[OTHER] = {"id": 77, "username": "mr-author"}
NOTES = r"/api/v4/projects/([^/]+)/merge_requests/(\d+)/notes"
STATUS = r"/api/v4/projects/([^/]+)/statuses/([0-9a-f]{40}|[0-9a-f]{64})"
state = State(DIR)
next_id = [700]


class Handler(ForgeHandler):
    BODY_MAX = 1000000
    REFUSE = {
        "auth": (401, "message", "401 Unauthorized"),
        "content_type": (415, "message", "want application/json"),
        "json": (400, "message", "400 Bad request"),
        "no_body": (400, "error", "body is missing"),
        "too_long": (400, "message", "body is too long"),
        "paging": (400, "message", "bad paging"),
        "state": (400, "error", "state does not have a valid value"),
        "unknown": (400, "error", "unknown parameters"),
        "not_string": (400, "error", "{} is invalid"),
        "url": (400, "error", "target_url is invalid"),
    }

    def credential(self):
        if self.headers.get("JOB-TOKEN") is not None:
            return "job-token"
        if self.headers.get("PRIVATE-TOKEN") is not None:
            return "private-token"
        if self.headers.get("Authorization") is not None:
            return "bearer"
        return "none"

    def log_fields(self):
        return {"credential": self.credential()}

    def who(self):
        """The token's user, None when unknown."""
        tok = self.headers.get("PRIVATE-TOKEN")
        auth = self.headers.get("Authorization", "")
        if tok is None and auth.startswith("Bearer "):
            tok = auth[len("Bearer "):]
        return USERS.get(tok)

    def authorized(self):
        ok = self.who() is not None
        if not ok:
            self.refuse("auth")
        return ok

    def route(self, with_id):
        u = urlsplit(self.path)
        m = re.fullmatch(NOTES + (r"/(\d+)" if with_id else ""), u.path)
        if not m:
            self.answer(404, {"message": "404 Not Found"})
            return None
        if not self.authorized():
            return None
        return m, parse_qs(u.query)

    def merge_request(self, iid):
        """GET /projects/{id}/merge_requests/{iid}: its head commit."""
        if not self.authorized():
            return
        heads = read_heads(os.path.join(DIR, "merge_requests.json"))
        if iid not in heads:
            return self.answer(404, {"message": "404 Not found"})
        self.answer(200, {"iid": int(iid), "state": "opened",
                          "sha": heads[iid]})

    def do_GET(self):
        if urlsplit(self.path).path == "/api/v4/user":
            if self.authorized():
                self.answer(200, dict(self.who()))
            return
        mr = re.fullmatch(r"/api/v4/projects/[^/]+/merge_requests/(\d+)",
                          urlsplit(self.path).path)
        if mr:
            return self.merge_request(mr.group(1))
        if re.fullmatch(NOTES + r"/(\d+)", urlsplit(self.path).path):
            return self.note()
        r = self.route(False)
        if not r:
            return
        m, q = r
        mine = [n for n in state.comments
                if n["project"] == m.group(1) and n["mr"] == int(m.group(2))]
        part = self.page(mine, q, 20)
        if part is not None:
            self.answer(200, [{"id": n["id"], "body": n["body"],
                               "author": n["author"]} for n in part])

    def note(self):
        """GET /projects/{id}/merge_requests/{iid}/notes/{note_id}."""
        r = self.route(True)
        if not r:
            return
        m = r[0]
        for n in state.comments:
            if n["project"] == m.group(1) and n["mr"] == int(m.group(2)) \
                    and n["id"] == int(m.group(3)):
                return self.answer(200, {"id": n["id"], "body": n["body"],
                                         "author": n["author"]})
        self.answer(404, {"message": "404 Not found"})

    def status(self, project, sha):
        """POST /projects/{id}/statuses/{sha}, as GitLab documents it."""
        if not self.authorized():
            return
        body = self.status_body(
            ("pending", "running", "success", "failed", "canceled",
             "skipped"),
            {"state", "ref", "name", "context", "target_url", "description",
             "coverage", "pipeline_id"},
            ("ref", "name", "context", "target_url", "description"))
        if body is None:
            return
        self.other_job_status()
        body.update(project=project, sha=sha)
        state.statuses.append(body)
        state.save()
        self.answer(201, dict(body, id=len(state.statuses),
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
        body = self.comment_body()
        if body is None:
            return
        fail = self.take_file("fail-next-post")
        if fail is not None:
            code = int(fail)
            return self.answer(code, {"message": "%d refused" % code})
        self.twin("twin-before-post", m)
        n = self.make(m, body)
        self.twin("twin-after-post", m)
        self.answer(201, {"id": n["id"], "body": body,
                          "author": n["author"]})

    def make(self, m, body):
        n = {"id": next_id[0], "project": m.group(1), "mr": int(m.group(2)),
             "body": body, "author": self.who()}
        next_id[0] += 1
        state.comments.append(n)
        state.save()
        return n

    def twin(self, name, m):
        """Another job's note made at the same moment, when asked."""
        body = self.take_file(name)
        if body is not None:
            self.make(m, body)

    def do_DELETE(self):
        r = self.route(True)
        if not r:
            return
        m, _ = r
        if self.take_file("refuse-next-delete") is not None:
            return self.answer(403, {"message": "403 Forbidden"})
        for n in state.comments:
            if n["id"] == int(m.group(3)) and n["mr"] == int(m.group(2)):
                if n["author"] != self.who():
                    return self.answer(403, {"message": "403 Forbidden"})
                state.comments.remove(n)
                state.save()
                return self.no_content()
        self.answer(404, {"message": "404 Note Not Found"})

    def do_PUT(self):
        r = self.route(True)
        if not r:
            return
        m, _ = r
        body = self.comment_body()
        if body is None:
            return
        self.edit_in_order(body)
        self.hold_edit(body)
        for n in state.comments:
            if n["id"] == int(m.group(3)) and n["mr"] == int(m.group(2)):
                if n["author"] != self.who():
                    return self.answer(403, {"message": "403 Forbidden"})
                n["body"] = body
                state.save()
                return self.answer(200, {"id": n["id"], "body": body,
                                         "author": n["author"]})
        self.answer(404, {"message": "404 Note Not Found"})


run(Handler, state)
