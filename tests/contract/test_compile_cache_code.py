"""The compile cache's fingerprint of the code against what a compile depends on beyond hz's source
text: where hz is installed, the time zone database, an archive's hz, and what else lies among the
sources. Each writer and reader is a process of its own, with its own `hz` on the path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import hz
from hz.contract.compile_cache import ENV, FILE, kept_in
from hz.contract.load import load_text
from tests.contract.samples import GOOD, variant

# a missing key: its hint names the JSON Schema inside the installed package, a path of this process
NO_TITLE = variant("  title: Weekly change digest\n", "")


def test_a_hit_names_the_schema_of_the_hz_that_reads_it(tmp_path: Path) -> None:
    """The same hz source installed elsewhere (a new runner image, another checkout) writes the file;
    this hz must not hand out hints naming the other install's files."""
    elsewhere = tmp_path / "site"
    shutil.copytree(Path(hz.__file__).parent, elsewhere / "hz", ignore=shutil.ignore_patterns("__pycache__"))
    folder = tmp_path / "cache"
    script = (
        "import sys\nfrom hz.contract.compile_cache import kept_in\nfrom hz.contract.load import load_text\n"
        f"with kept_in({{'{ENV}': sys.argv[1]}}):\n    load_text(sys.stdin.read())\n"
    )
    environ = {**os.environ, "PYTHONPATH": str(elsewhere)}
    run = [sys.executable, "-c", script, str(folder)]
    subprocess.run(run, input=NO_TITLE, text=True, env=environ, cwd=tmp_path, check=True)
    assert str(elsewhere) in (folder / FILE).read_text()
    with kept_in({ENV: str(folder)}):
        found = load_text(NO_TITLE)
    fresh = load_text(NO_TITLE)
    assert any(str(Path(hz.__file__).parent) in d.hint for d in fresh.diagnostics)
    assert found == fresh


def test_a_time_zone_the_writer_s_tz_database_lacked_is_valid_where_it_is_known(tmp_path: Path) -> None:
    """A schedule's zone is checked against the time zone database the process finds (the system's, as
    a runner image ships it, then the tzdata package). A run on a newer image must not be told by the
    file that a zone added since is unknown (a valid entry is validated again when used; a refusal is not)."""
    zones = tmp_path / "zoneinfo"
    (zones / "Hz").mkdir(parents=True)
    shutil.copyfile("/usr/share/zoneinfo/UTC", zones / "Hz" / "Test")
    text = GOOD.replace('schedule: "0 8 * * MON"', 'schedule: {cron: "0 8 * * MON", tz: Hz/Test}')
    folder = tmp_path / "cache"
    with kept_in({ENV: str(folder)}):
        assert [d.code for d in load_text(text).diagnostics] == ["HZC011"]  # not in this database
    script = (
        "import sys\nfrom hz.contract.compile_cache import kept_in\nfrom hz.contract.load import load_text\n"
        "text = sys.stdin.read()\n"
        f"with kept_in({{'{ENV}': sys.argv[1]}}):\n    found = load_text(text)\n"
        "print(found == load_text(text), load_text(text).ok)\n"
    )
    environ = {**os.environ, "PYTHONTZPATH": str(zones)}
    run = [sys.executable, "-c", script, str(folder)]
    done = subprocess.run(
        run, input=text, text=True, env=environ, cwd=Path(hz.__file__).parent.parent, capture_output=True, check=True
    )
    assert done.stdout.split() == ["True", "True"]


def test_an_editor_s_lock_file_or_a_fifo_among_hz_s_sources_neither_crashes_nor_stalls(tmp_path: Path) -> None:
    """A checkout's hz is fingerprinted by reading its source files: Emacs keeps `.#load.py`, a link to
    nowhere, beside a file being edited, and anything named *.py may stand there. A tick of that checkout
    must compile as without the cache, not fail or wait."""
    site = tmp_path / "site"
    shutil.copytree(Path(hz.__file__).parent, site / "hz", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "hz" / "contract" / ".#load.py").symlink_to("someone@host.1234:1700000000")
    os.mkfifo(site / "hz" / "contract" / "pipe.py")
    script = (
        "import sys\nfrom hz.contract.compile_cache import kept_in\nfrom hz.contract.load import load_text\n"
        f"with kept_in({{'{ENV}': sys.argv[1]}}) as kept:\n    assert load_text(sys.stdin.read()).ok\n"
        "print(kept.misses)\n"
    )
    environ = {**os.environ, "PYTHONPATH": str(site)}
    run = [sys.executable, "-c", script, str(tmp_path / "cache")]
    done = subprocess.run(run, input=GOOD, text=True, env=environ, cwd=tmp_path, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "1\n"), done.stderr[-500:]


def _zipped(source: Path, target: Path, change: tuple[str, str] = ("", "")) -> None:
    """hz as a zip archive imported from (a zipapp's way), one message changed as a new version would."""
    import zipfile

    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(source.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                data = path.read_bytes()
                if path.name == "validate.py":
                    data = data.replace(change[0].encode(), change[1].encode())
                archive.writestr(str(path.relative_to(source.parent)), data)


def test_an_hz_imported_from_an_archive_changed_in_place_is_not_fingerprinted_as_the_old(tmp_path: Path) -> None:
    """A zip's hz has no source files to read: its fingerprint must not be the same for every version."""
    archive = tmp_path / "hz.pyz"
    _zipped(Path(hz.__file__).parent, archive)
    script = (
        "import sys\nfrom hz.contract.compile_cache import kept_in\nfrom hz.contract.load import load_text\n"
        "text = sys.stdin.read()\n"
        f"with kept_in({{'{ENV}': sys.argv[1]}}):\n    found = load_text(text)\n"
        "print(found == load_text(text))\n"
    )
    run = [sys.executable, "-c", script, str(tmp_path / "cache")]
    environ = {**os.environ, "PYTHONPATH": str(archive)}
    first = subprocess.run(run, input=NO_TITLE, text=True, env=environ, cwd=tmp_path, capture_output=True)
    assert first.stdout == "True\n", first.stderr[-500:]
    _zipped(Path(hz.__file__).parent, archive, ("is missing", "is not there"))  # the next version, same place
    again = subprocess.run(run, input=NO_TITLE, text=True, env=environ, cwd=tmp_path, capture_output=True)
    assert again.stdout == "True\n", again.stderr[-500:]
