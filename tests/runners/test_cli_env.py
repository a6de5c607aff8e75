"""Runner CLIs get an environment without hz's tokens, and what they print is scrubbed before hz keeps it.

The scripted fakes dump the environment they were started with next to themselves; the assertions read
that file, so they see exactly what a real `claude` or `codex` would have seen.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from hz.runners.base import RunnerFailed, ThinkRequest
from hz.runners.claude_code import ClaudeCodeRunner
from hz.runners.codex import CodexRunner
from hz.runners.pricing import PRICES
from hz.secrets import is_secret_name
from tests.runners.test_claude_code import OUTCOME as CLAUDE_OUTCOME
from tests.runners.test_claude_code import prints, result
from tests.runners.test_codex import OUTCOME as CODEX_OUTCOME
from tests.runners.test_codex import success

if TYPE_CHECKING:
    from tests.runners.conftest import FakeCli

Requests = Callable[..., ThinkRequest]

HZ_SECRETS = {
    "GITHUB_TOKEN": "ghp_githubtokenvalue0001",
    "GH_TOKEN": "gho_ghclitokenvalue0002",
    "JIRA_TOKEN": "jira-token-value-0003",
    "NPM_TOKEN": "npm_tokenvalue0004",
    "DEPLOY_SECRET": "deploy-secret-0005",
    "DB_PASSWORD": "db-password-0006",
}
LOGINS = {
    "ANTHROPIC_API_KEY": "sk-ant-anthropickey0007",
    "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat-oauthtoken0008",
    "OPENAI_API_KEY": "sk-openaikeyvalue0009",
}
PLAIN = {"JIRA_USER": "priya@example.org", "LANG": "C.UTF-8", "HZ_GITHUB_API": "https://x:urlpass0010@127.0.0.1:9"}
DUMP = "import json as _j\n_j.dump(dict(os.environ), open(os.path.join(os.path.dirname(__file__), 'env.json'), 'w'))\n"


def seen_environ(fake: FakeCli) -> dict[str, str]:
    data: dict[str, str] = json.loads((fake.bin / "env.json").read_text(encoding="utf-8"))
    return data


def with_secrets(fake: FakeCli) -> dict[str, str]:
    return {**fake.environ, **HZ_SECRETS, **LOGINS, **PLAIN}


def secret_names(environ: dict[str, str]) -> set[str]:
    return set(environ) & {*HZ_SECRETS, *LOGINS}


def test_claude_gets_its_own_login_and_none_of_hz_tokens(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("claude", DUMP + prints(result(structured_output=CLAUDE_OUTCOME)))
    ClaudeCodeRunner("claude", "sonnet", PRICES["sonnet"], with_secrets(fake_cli)).think(make_request())

    seen = seen_environ(fake_cli)
    assert secret_names(seen) == {"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"}
    assert seen["ANTHROPIC_API_KEY"] == LOGINS["ANTHROPIC_API_KEY"]
    assert (seen["JIRA_USER"], seen["LANG"]) == (PLAIN["JIRA_USER"], "C.UTF-8")
    assert seen["HZ_GITHUB_API"] == "https://127.0.0.1:9"  # a credential in a URL stays behind too
    assert 0 < int(seen["CLAUDE_CODE_MAX_OUTPUT_TOKENS"]) <= 20000  # hz sets it: the ceiling, or what the grant buys


def test_codex_gets_its_own_key_and_none_of_hz_tokens(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("codex", DUMP + success(json.dumps(CODEX_OUTCOME)))
    CodexRunner("codex", None, PRICES["sonnet"], with_secrets(fake_cli)).think(make_request())

    seen = seen_environ(fake_cli)
    assert secret_names(seen) == {"OPENAI_API_KEY"}
    assert "GITHUB_TOKEN" not in seen and "JIRA_TOKEN" not in seen


@pytest.mark.parametrize("where", ["stdout", "stderr"])
def test_a_cli_that_prints_its_key_in_an_error_is_quoted_without_it(
    fake_cli: FakeCli, make_request: Requests, where: str
) -> None:
    key = LOGINS["ANTHROPIC_API_KEY"]
    if where == "stdout":
        body = prints(result(subtype="success", is_error=True, result=f"Invalid API key {key}"))
    else:
        body = f"sys.stderr.write('401: bad key {key}')\nsys.exit(1)"
    fake_cli.install("claude", body)
    recorded: list[dict[str, Any]] = []
    runner = ClaudeCodeRunner("claude", "sonnet", PRICES["sonnet"], with_secrets(fake_cli))
    with pytest.raises(RunnerFailed) as failed:
        runner.think(make_request(record=recorded.append))

    expected = {
        "stdout": "claude-code failed: Invalid API key [redacted]",
        "stderr": "claude-code exited with status 1: 401: bad key [redacted]",
    }
    assert failed.value.message == expected[where]
    assert key not in json.dumps(recorded)


def test_the_environment_is_passed_whole_when_it_holds_no_secret(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("codex", DUMP + success(json.dumps(CODEX_OUTCOME)))
    environ = {k: v for k, v in fake_cli.environ.items() if not is_secret_name(k) and "@" not in v}
    CodexRunner("codex", None, PRICES["sonnet"], environ).think(make_request())

    seen = seen_environ(fake_cli)
    assert {k: v for k, v in seen.items() if k in environ} == environ
