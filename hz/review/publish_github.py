"""`github.issue.comment`: the approved text as a comment on an issue or pull request of the forge.

The comment ends with the hidden marker of its publish key, and the forge is asked for a comment with
that marker first: a comment written before a crash is found, never written twice.
"""

from __future__ import annotations

from hz.review.publish import (
    Job,
    PublishContext,
    PublishError,
    check_size,
    comment_body,
    github_issue,
    same_repository,
)

MAX_COMMENT = 65536  # GitHub's limit on an issue comment's body, in characters


def issue_comment(ctx: PublishContext, job: Job) -> tuple[bool, str]:
    repo, number = github_issue(job.target)
    forge = ctx.forge
    if forge is None:
        raise PublishError(
            f"no forge to comment on {job.target} with",
            hint="set GITHUB_TOKEN (and HZ_GITHUB_API for GitHub Enterprise) where the tick runs",
        )
    same_repository(forge, repo, job.target)
    body = comment_body(job)
    check_size(body, MAX_COMMENT, "a GitHub comment")
    if forge.find_comment(number, job.marker) is not None:
        return False, body
    forge.add_comment(number, body)
    return True, body
