"""The README's "Set up a team", followed command by command.

The commands are read from the README itself (each fenced block under a `<!-- team-guide: ROLE -->`
marker), so the guide and this test cannot drift apart. Each role is a person on their own machine:
the server's administrator, alice (who sets the team up and owns the example) and bob (who reviews),
each with their own `$HZ_HOME`, config home and git identity, all reaching the remote through a loopback
`git daemon`. Every command runs in a real bash, the blocks of one role in one continuing session (its
folder and exported variables carry over); only the `pip install` is replaced, by a check that the hz
under test is the one on PATH. The clock is the real one: the example's latest Monday slot is due.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.gitstate.conftest import loopback  # noqa: F401  (fixture: git daemon serving `bare`'s folder)
from tests.turn.team_harness import base_environ, draft_branches, state_events

README = Path(__file__).resolve().parents[2] / "README.md"
BIN = Path(sys.executable).parent
BLOCK = re.compile(r"^ *<!-- team-guide: (\w+) -->\n *```sh\n(.*?)\n *```$", re.MULTILINE | re.DOTALL)
MARK = "\x1e"  # a separator no command prints, between the outputs of commands in one script
# what the test does instead of a command it cannot run here, and why
INSTALL = 'python3 -m pip install "$HZ_PACKAGE"'
INSTEAD = {INSTALL: "hz --version"}  # the hz under test is installed already
PEOPLE = {"alice": "alice@example.com", "bob": "bob@example.com"}


def guide() -> list[tuple[str, list[str]]]:
    """The guide's blocks in order: (role, its commands); a here-document is one command with its body."""
    blocks = []
    for role, body in BLOCK.findall(README.read_text(encoding="utf-8")):
        commands: list[str] = []
        lines = iter(textwrap.dedent(body).splitlines())
        for line in lines:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if (heredoc := re.search(r"<<'?(\w+)'?$", line)) is not None:
                line = "\n".join([line, *iter(lines.__next__, heredoc.group(1)), heredoc.group(1)])
            commands.append(line)
        blocks.append((role, commands))
    return blocks


@dataclass
class Ran:
    role: str
    command: str
    code: int
    output: str


@dataclass
class Session:
    """One person's shell: the folder and exported variables that carry from one block to the next."""

    role: str
    cwd: Path
    env: dict[str, str]
    ran: list[Ran] = field(default_factory=list)

    def run(self, commands: list[str], state: Path) -> list[Ran]:
        script = [f"cd {_quote(str(self.cwd))}"]
        for command in commands:
            script += [f"printf '{MARK}\\n'", INSTEAD.get(command, command), f"printf '{MARK}%d\\n' $?"]
        script += [f"pwd > {_quote(str(state / 'pwd'))}", f"env -0 > {_quote(str(state / 'env'))}"]
        done = subprocess.run(["bash", "-c", "\n".join(script)], env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=300, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout
        parts = done.stdout.split(MARK)[1:]
        ran = [Ran(self.role, c, int(code.split("\n", 1)[0]), out.strip("\n"))
               for c, out, code in zip(commands, parts[0::2], parts[1::2], strict=True)]  # fmt: skip
        self.cwd = Path((state / "pwd").read_text().strip())
        self.env = dict(item.split("=", 1) for item in (state / "env").read_text().split("\0") if "=" in item)
        self.ran += ran
        return ran


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    """Where the remote will be: the guide's first step creates it; the git daemon serves its folder."""
    (tmp_path / "served").mkdir()
    return tmp_path / "served" / "team.git"


def sessions(tmp_path: Path, bare: Path, url: str) -> dict[str, Session]:
    common = {"REMOTE": url, "SERVER_REPO": str(bare), "HZ_PACKAGE": "hz==0.1.0",
              "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    made = {}
    for role in ("server", *PEOPLE):
        folder = tmp_path / role
        folder.mkdir()
        env = base_environ(folder / "hz-home", HZ_CONFIG_HOME=str(folder / "hz-config"), **common)
        if role in PEOPLE:
            name = role.capitalize()
            env |= {"GIT_AUTHOR_NAME": name, "GIT_COMMITTER_NAME": name, "GIT_AUTHOR_EMAIL": PEOPLE[role],
                    "GIT_COMMITTER_EMAIL": PEOPLE[role]}  # fmt: skip
        made[role] = Session(role, folder, env)
    return made


def test_the_team_guide_from_hz_init_to_the_first_approved_draft(
    tmp_path: Path,
    bare: Path,
    loopback: str,  # noqa: F811
) -> None:
    people = sessions(tmp_path, bare, loopback)
    blocks = guide()
    assert [role for role, _ in blocks] == ["server", "alice", "alice", "alice", "alice", "bob", "bob"]
    ran: list[Ran] = []
    for number, (role, commands) in enumerate(blocks):
        state = tmp_path / f"state-{number}"
        state.mkdir()
        ran += people[role].run(commands, state)
    for step in ran:
        assert step.code == 0, f"{step.role}: {step.command}\n{step.output}"

    def said(role: str, command: str, nth: int = 0) -> str:
        return [r.output for r in ran if (r.role, r.command) == (role, command)][nth]

    assert said("alice", INSTALL).startswith("hz, version ")
    init = said("alice", "hz init --owner @alice").splitlines()
    assert init[0] == "created hz.toml" and "next steps:" in init
    assert said("alice", "hz tick") == "repo-digest: started -> drafted"
    assert re.search(r"hz/draft/[0-9A-Z]{26}/digest", said("alice", "hz drafts"))
    assert said("bob", "hz tick", 0) == "repo-digest: skipped -> not a member of it"
    assert "approv" in said("bob", "hz tick", 1)
    assert " approval.observed " in said("bob", "hz state log")
    observed = said("bob", "hz graph --observed")
    assert "git:. -> team:repo-digest" in observed
    assert re.search(r"team:repo-digest => state:reports/repo-digest/\d{4}-W\d\d\.md", observed), observed
    assert said("bob", "hz state lint") == "hz/state: clean"

    # what reached the remote: one run of the slot by the owner, approved by bob through the roster
    events = state_events(bare)
    kinds = sorted(e["kind"] for e in events)
    assert kinds == ["approval.observed", "draft.placed", "turn.finished", "turn.started"]
    assert next(e for e in events if e["kind"] == "approval.observed")["data"]["approver"] == "@bob"
    assert draft_branches(bare) == []  # the merged draft's branch is gone
    assert lint_as_actions_does(tmp_path, loopback, people["bob"].env) == "hz/state: clean"


def lint_as_actions_does(tmp_path: Path, url: str, env: dict[str, str]) -> str:
    """A scheduled run of the team's generated state-lint workflow (its checkout and `run:` steps,
    tests.turn.team_harness.state_lint_run): what the lint prints."""
    from tests.turn.team_harness import state_lint_run

    clone = tmp_path / "actions-lint"
    done = state_lint_run(url, clone, env, "schedule")
    assert done.returncode == 0, done.stdout + done.stderr
    leases = subprocess.run(["git", "for-each-ref", "--format=%(refname)", "refs/hz/lease/"], cwd=clone, env=env,
                            capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    assert leases == [f"refs/hz/lease/{_lease(clone)}"]  # fetched, so the lint judged the events' tokens
    return done.stdout.strip()


def _lease(clone: Path) -> str:
    found = re.search(r"^id: (\S+)$", (clone / "workflows/repo-digest.prose.md").read_text(), re.MULTILINE)
    assert found is not None
    return f"hz-{found.group(1)}"
