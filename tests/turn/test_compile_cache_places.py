"""Where a careless workflow may put `HZ_COMPILE_CACHE`: inside the checkout, inside its `.git`, or in
`$HZ_HOME` itself. Each run is a real `hz tick` of the tick workflow's checkout (tests.turn.team_harness);
the file must change no outcome and never travel in what hz pushes (a draft, hz/state, a lease)."""

from __future__ import annotations

from pathlib import Path

from hz.contract.compile_cache import ENV, FILE
from tests.turn.test_late_runner import KEY
from tests.turn.test_stateless_run import PAST_GRACE, actions, finished, remote, tick
from tests.turn.test_team import git


def pushed_files(bare: Path) -> set[str]:
    """Every file name in every commit of every branch of the remote."""
    names: set[str] = set()
    for commit in git("--git-dir", str(bare), "rev-list", "--all").split():
        listed = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", commit)
        names |= {name.rsplit("/", 1)[-1] for name in listed.splitlines()}
    return names


def test_a_cache_in_the_checkout_its_git_or_the_home_changes_nothing_and_is_never_pushed(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    clone, environ = actions(tmp_path, bare, 401)
    inside = clone / ".hz-compiled"
    assert tick(clone, {**environ, ENV: str(inside)}, PAST_GRACE) == [("started", "drafted")]
    assert (inside / FILE).is_file()

    for run, where in ((402, lambda c, e: c / ".git" / "hz-compiled"), (403, lambda c, e: Path(e["HZ_HOME"]))):
        again, again_env = actions(tmp_path, bare, run)
        folder = where(again, again_env)
        (folder / FILE).parent.mkdir(parents=True, exist_ok=True)
        (folder / FILE).write_bytes((inside / FILE).read_bytes())  # the first run's file, restored here
        assert tick(again, {**again_env, ENV: str(folder)}, PAST_GRACE) == [("skipped", "ran-elsewhere")]
        assert (folder / FILE).read_bytes() == (inside / FILE).read_bytes()  # every compile found there
    assert [e["key"] for e in finished(bare)] == [KEY]
    assert FILE not in pushed_files(bare)
