#!/usr/bin/env python3
"""A GitHub REST API stand-in for the comment tests: issue comments only.

usage: github_standin.py DIR TOKEN [SEED] [--installation] [--other TOKEN2]

Listens on 127.0.0.1 on a free port and writes it to DIR/port.  Serves
  GET   /repos/{o}/{r}/issues/{n}/comments?per_page=&page=
  POST  /repos/{o}/{r}/issues/{n}/comments          {"body": ...}
  PATCH /repos/{o}/{r}/issues/comments/{id}         {"body": ...}
  DELETE /repos/{o}/{r}/issues/comments/{id}        204, 404 when none
  POST  /repos/{o}/{r}/statuses/{sha}  {"state", "target_url"?,
        "description"?, "context"?} (REST "Create a commit status": state
        one of error, failure, pending, success; sha a full commit hash)
  GET   /repos/{o}/{r}/issues/comments/{id}        the comment, 404 when none
  GET   /user   the token's account, as GitHub answers it: TOKEN is the
        user "benchprof-ci" (type User); with --installation it is an
        installation token (what a workflow's GITHUB_TOKEN is), which
        GitHub refuses here with 403 "Resource not accessible by
        integration", and whose comments are by "github-actions[bot]"
        (type Bot).  --other TOKEN2 is a second account, "pr-author"
        (type User), for comments written by someone else.
  GET   /repos/{o}/{r}/pulls/{n}   {"number", "head": {"sha"},
        "merge_commit_sha"}: the heads the test wrote in DIR/pulls.json
        ({"5": SHA}, or {"5": {"head": SHA, "merge": SHA2}}); 404 for
        others
and checks each request the way GitHub would: the bearer token, the JSON
body, per_page at most 100.  Each comment has its author in "user"
({login, id, type}), as GitHub's answers do.  Starts with SEED (default 130) comments by
others on issue 5, so finding ours takes more than one page.  Every
request is appended to DIR/requests.log as one JSON line (method, path,
status; never the token) and the comments are kept in DIR/state.json.
While DIR/lose-next-post exists, the next POST makes its comment, then the
file is removed and the connection closed without an answer (logged with
status 0): the answer lost on the way back.
Two jobs posting at the same moment: while DIR/twin-before-post exists,
the next POST first makes a comment of the same account with the file's
text as its body (another job's POST that got in first: a lower id),
then its own; DIR/twin-after-post makes it after its own (a higher id).
Each file is removed once used.  While DIR/refuse-next-delete exists, the
next DELETE is refused with 403 (and the file removed).  While
DIR/other-before-status exists, the next status POST is preceded by
another job's edit of a comment and its own status (forge.py,
other_job_status): two jobs of one head whose statuses land in the other
order than their comments.  DIR/edit-order makes the PATCHes of jobs
running at once land in the order it gives (forge.py, edit_in_order);
DIR/hold-edit holds the PATCH whose body holds its text until the test
makes DIR/release-edit (forge.py, hold_edit).
"""
import os
import re
import sys
from urllib.parse import parse_qs, urlsplit

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
from forge import ForgeHandler, State, read_heads, run  # noqa: E402

ARGS = sys.argv[1:]
INSTALLATION = "--installation" in ARGS
if INSTALLATION:
    ARGS.remove("--installation")
OTHER = None
if "--other" in ARGS:
    i = ARGS.index("--other")
    OTHER = ARGS[i + 1]
    del ARGS[i:i + 2]
DIR, TOKEN = ARGS[0], ARGS[1]
SEED = int(ARGS[2]) if len(ARGS) > 2 else 130
SOMEONE = {"login": "someone", "id": 3, "type": "User"}
# the accounts, by token
ACCOUNTS = {TOKEN: {"login": "github-actions[bot]", "id": 41898282,
                    "type": "Bot"} if INSTALLATION else
            {"login": "benchprof-ci", "id": 7, "type": "User"}}
if OTHER:
    ACCOUNTS[OTHER] = {"login": "pr-author", "id": 9, "type": "User"}
state = State(DIR, [{"id": 1000 + i, "issue": 5,
                     "body": "comment %d by someone" % i, "user": SOMEONE}
                    for i in range(SEED)])
next_id = [5000]


def html_url(c):
    return "https://github.example/own/repo/pull/%d#issuecomment-%d" % (
        c["issue"], c["id"])


class Handler(ForgeHandler):
    REFUSE = {
        "auth": (401, "message", "Bad credentials"),
        "content_type": (415, "message", "want application/json"),
        "json": (400, "message", "Problems parsing JSON"),
        "no_body": (422, "message", "body is required"),
        "too_long": (422, "message", "body is too long"),
        "paging": (422, "message", "bad paging"),
        "state": (422, "message", "state is required"),
        "unknown": (422, "message", "unknown fields"),
        "not_string": (422, "message", "{} is not a string"),
        "url": (422, "message", "target_url is not a URL"),
    }

    def account(self):
        """The token's account, None when the token is unknown."""
        auth = self.headers.get("Authorization", "")
        return ACCOUNTS.get(auth[len("Bearer "):]) \
            if auth.startswith("Bearer ") else None

    def authorized(self):
        if self.account() is None:
            self.refuse("auth")
            return False
        return True

    def user(self):
        """GET /user: the user token's account; an installation token
        is refused, as GitHub documents for GitHub Apps."""
        if not self.authorized():
            return
        who = self.account()
        if who["type"] == "Bot":
            return self.answer(403, {
                "message": "Resource not accessible by integration",
                "documentation_url": "https://docs.github.com/rest/users/"
                                     "users#get-the-authenticated-user"})
        self.answer(200, dict(who))

    def pull(self, number):
        """GET /repos/{o}/{r}/pulls/{n}: its head commit."""
        if not self.authorized():
            return
        heads = read_heads(os.path.join(DIR, "pulls.json"))
        if number not in heads:
            return self.answer(404, {"message": "Not Found"})
        head = heads[number]
        if isinstance(head, str):
            head = {"head": head}
        self.answer(200, {"number": int(number), "state": "open",
                          "head": {"sha": head["head"]},
                          "merge_commit_sha": head.get("merge")})

    def do_GET(self):
        u = urlsplit(self.path)
        if u.path == "/user":
            return self.user()
        p = re.fullmatch(r"/repos/[^/]+/[^/]+/pulls/(\d+)", u.path)
        if p:
            return self.pull(p.group(1))
        one = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)",
                           u.path)
        if one:
            return self.comment(int(one.group(1)))
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments", u.path)
        if not m:
            return self.answer(404, {"message": "Not Found"})
        if not self.authorized():
            return
        mine = [c for c in state.comments if c["issue"] == int(m.group(1))]
        part = self.page(mine, parse_qs(u.query), 30)
        if part is not None:
            self.answer(200, [{"id": c["id"], "body": c["body"],
                               "user": c.get("user", SOMEONE)}
                              for c in part])

    def comment(self, cid):
        """GET /repos/{o}/{r}/issues/comments/{id}: one comment."""
        if not self.authorized():
            return
        for c in state.comments:
            if c["id"] == cid:
                return self.answer(200, {"id": c["id"], "body": c["body"],
                                         "user": c.get("user", SOMEONE),
                                         "html_url": html_url(c)})
        self.answer(404, {"message": "Not Found"})

    def status(self, sha):
        """POST /repos/{o}/{r}/statuses/{sha}, as GitHub documents it."""
        if not self.authorized():
            return
        body = self.status_body(
            ("error", "failure", "pending", "success"),
            {"state", "target_url", "description", "context"},
            ("target_url", "description", "context"))
        if body is None:
            return
        if len(body.get("description", "")) > 140:
            return self.answer(422, {"message": "description is too long"})
        if self.headers.get("Accept") != "application/vnd.github+json":
            return self.answer(415, {"message": "Accept header"})
        self.other_job_status()
        body["sha"] = sha
        state.statuses.append(body)
        state.save()
        self.answer(201, dict(body, id=len(state.statuses)))

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
        body = self.comment_body()
        if body is None:
            return
        issue = int(m.group(1))
        self.twin("twin-before-post", issue)
        c = self.make(issue, body)
        self.twin("twin-after-post", issue)
        lose = os.path.join(DIR, "lose-next-post")
        if os.path.exists(lose):
            os.remove(lose)
            self.log_request_line(0)
            self.close_connection = True
            return
        self.answer(201, {"id": c["id"], "body": body, "user": c["user"],
                          "html_url": html_url(c)})

    def make(self, issue, body):
        c = {"id": next_id[0], "issue": issue, "body": body,
             "user": self.account()}
        next_id[0] += 1
        state.comments.append(c)
        state.save()
        return c

    def twin(self, name, issue):
        """Another job's comment made at the same moment, when asked."""
        body = self.take_file(name)
        if body is not None:
            self.make(issue, body)

    def do_DELETE(self):
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)",
                         self.path)
        if not m:
            return self.answer(404, {"message": "Not Found"})
        if not self.authorized():
            return
        if self.take_file("refuse-next-delete") is not None:
            return self.answer(403, {"message": "Must have admin rights "
                                                "to Repository."})
        for c in state.comments:
            if c["id"] == int(m.group(1)):
                state.comments.remove(c)
                state.save()
                return self.no_content()
        self.answer(404, {"message": "Not Found"})

    def do_PATCH(self):
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)",
                         self.path)
        if not m:
            return self.answer(404, {"message": "Not Found"})
        if not self.authorized():
            return
        body = self.comment_body()
        if body is None:
            return
        self.edit_in_order(body)
        self.hold_edit(body)
        for c in state.comments:
            if c["id"] == int(m.group(1)):
                c["body"] = body
                state.save()
                return self.answer(200, {"id": c["id"], "body": body,
                                         "user": c["user"],
                                         "html_url": html_url(c)})
        self.answer(404, {"message": "Not Found"})


run(Handler, state)
