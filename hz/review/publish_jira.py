"""`jira.issue.comment`: the approved text as a comment on a Jira issue, `jira:<site>/<ISSUE-KEY>`.

The base URL and the credentials are those of the Jira source (hz.sources.jira: `$HZ_JIRA_BASE`,
`$JIRA_TOKEN`, `$JIRA_USER`). REST v2 by default; `HZ_JIRA_API=3` uses v3, whose bodies are Atlassian
documents. Jira renders no HTML comment, so the marker is the comment's last line, in plain words.
The issue's comments are read (all pages) for that marker before one is added.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from hz.review.publish import Job, PublishContext, PublishError, check_size, comment_body
from hz.secrets import Secrets, redact_url, secrets_of
from hz.sources.http import Service, client, get
from hz.sources.jira import auth_headers, base_url

SERVICE = Service("Jira", "JIRA_TOKEN")
MAX_COMMENT = 32767  # Jira's limit on a comment's body, in characters
PAGE = 100
_TARGET = re.compile(r"^jira:(?P<site>[A-Za-z0-9][A-Za-z0-9-]{0,62})/(?P<issue>[A-Z][A-Z0-9_]{0,31}-[1-9][0-9]{0,9})$")


def issue_comment(ctx: PublishContext, job: Job) -> tuple[bool, str]:
    site, issue = _parts(job.target)
    body = comment_body(job, hidden=False)
    check_size(body, MAX_COMMENT, "a Jira comment")
    version = "3" if ctx.environ.get("HZ_JIRA_API", "2").strip() == "3" else "2"
    url = f"{base_url(ctx.environ, site)}/rest/api/{version}/issue/{quote(issue)}/comment"
    secrets = secrets_of(ctx.environ)
    with client(auth_headers(ctx.environ)) as session:
        if _has_marker(session, url, job.marker, secrets):
            return False, body
        payload = {"body": _document(body) if version == "3" else body}
        _post(session, url, payload, secrets)
    return True, body


def _parts(target: str) -> tuple[str, str]:
    match = _TARGET.match(target)
    if match is None:
        raise PublishError(
            f"'{target}' names no Jira issue", hint="write jira:<site>/<ISSUE-KEY>, e.g. jira:acme/PLAT-7"
        )
    return match["site"], match["issue"]


def _has_marker(session: Any, url: str, marker: str, secrets: Secrets) -> bool:
    """Whether any comment of the issue holds `marker`; v3 bodies are documents, searched as JSON text."""
    import orjson

    start = 0
    while True:
        params: Mapping[str, str | int] = {"startAt": start, "maxResults": PAGE}
        body = get(session, url, SERVICE, params=params, secrets=secrets).json()
        comments = body.get("comments") if isinstance(body, dict) else None
        if not isinstance(comments, list):
            raise PublishError(f"Jira answered {redact_url(url)} with no comment list")
        for comment in comments:
            text = comment.get("body") if isinstance(comment, dict) else None
            text = text if isinstance(text, str) else orjson.dumps(text).decode()
            if marker in text:
                return True
        start += len(comments)
        total = body.get("total")
        if not comments or not isinstance(total, int) or start >= total:
            return False


def _post(session: Any, url: str, payload: dict[str, Any], secrets: Secrets) -> None:
    from hz.http.client import Asked, RemoteError, limits_from, request

    asked = Asked("Jira", redact_url(url))
    try:
        response = request(session, "POST", url, asked, limits_from(os.environ), json=payload)
    except RemoteError as exc:
        raise PublishError(secrets.scrub(exc.message), hint=exc.hint) from None
    if response.status_code in (200, 201):
        return
    reason = secrets.scrub(f"{response.status_code} {response.reason_phrase}".strip())
    hint = {
        401: "set JIRA_TOKEN (and JIRA_USER for Jira Cloud) to a token that may comment",
        403: "check that the token in JIRA_TOKEN may comment on this issue",
        404: "check the issue key of the publish target",
    }.get(response.status_code, "hz tries again at the next tick")
    raise PublishError(f"Jira refused the comment on {redact_url(url)} ({reason})", hint=hint)


def _document(text: str) -> dict[str, Any]:
    """An Atlassian document for v3: one paragraph per block of lines, the marker last."""
    blocks = [b for b in text.split("\n\n") if b.strip()]
    return {
        "type": "doc",
        "version": 1,
        "content": [{"type": "paragraph", "content": [{"type": "text", "text": b.strip()}]} for b in blocks],
    }
