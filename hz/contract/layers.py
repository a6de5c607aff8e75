"""Where contracts live: the four layers, their namespaces, and finding the files in each.

| layer   | directory                                  | namespace   | scopes allowed   |
|---------|--------------------------------------------|-------------|------------------|
| team    | `workflows/` at the repository root        | `team`      | personal, team   |
| project | `.heinzel/workflows/` beside an `hz.toml`  | `project`   | personal         |
| user    | `<config home>/workflows/`                 | `me`        | personal         |
| module  | `<package>/workflows/` shipped as data     | module name | personal, team   |

A bare name resolves in that order (team first). Which contract may replace which is in `names.py`.

The module layer is a catalogue offered to every repository (`hz workflow list`, `hz heinzel new`), not
part of any team: a picture of a repository (`hz graph`) shows a module contract only where it was
adopted, by this home running it as an agent or by a shown contract reading it (`adopted_modules`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Literal

from hz.config import config_home

LayerKind = Literal["team", "project", "user", "module"]
RESOLUTION_ORDER: tuple[LayerKind, ...] = ("team", "project", "user", "module")
SUFFIX = ".prose.md"
DEFAULTS_FILE = "_defaults.yaml"
PROJECT_MARKER = "hz.toml"

# Packages that ship contracts as package data, by namespace.
MODULES: Mapping[str, str] = {"hz": "hz"}


@dataclass(frozen=True)
class Layer:
    kind: LayerKind
    namespace: str
    directory: Path
    base: Path | None  # diagnostics show paths relative to this (the repository root); None: absolute

    @property
    def rank(self) -> int:
        return RESOLUTION_ORDER.index(self.kind)

    @property
    def local(self) -> bool:
        """Project and user layers belong to one person's machine."""
        return self.kind in ("project", "user")


@dataclass(frozen=True)
class ContractFile:
    layer: Layer
    path: Path

    @property
    def name(self) -> str:
        return self.path.name[: -len(SUFFIX)]

    @property
    def qualified_name(self) -> str:
        return f"{self.layer.namespace}:{self.name}"

    @property
    def display(self) -> str:
        """The path as diagnostics and CODEOWNERS show it."""
        if self.layer.base is not None:
            try:
                return self.path.relative_to(self.layer.base).as_posix()
            except ValueError:
                pass
        return str(self.path)


def discover_layers(
    root: Path | None, environ: Mapping[str, str] = os.environ, *, cwd: Path | None = None
) -> list[Layer]:
    """Every layer that exists, in resolution order. `root` is the repository (None outside one)."""
    layers: list[Layer] = []
    if root is not None:
        layers.append(Layer("team", "team", root / "workflows", root))
        if (project := find_project(root, cwd)) is not None:
            layers.append(Layer("project", "project", project / ".heinzel" / "workflows", root))
    layers.append(Layer("user", "me", config_home(environ) / "workflows", None))
    for namespace, package in sorted(MODULES.items()):
        layers.append(Layer("module", namespace, Path(str(files(package).joinpath("workflows"))), None))
    return [layer for layer in layers if layer.directory.is_dir()]


def find_project(root: Path, cwd: Path | None = None) -> Path | None:
    """The nearest directory holding an `hz.toml`, from `cwd` up to the repository root."""
    here = (cwd or Path.cwd()).resolve()
    top = root.resolve()
    chain = [here, *here.parents] if here.is_relative_to(top) else [top]
    for candidate in chain:
        if (candidate / PROJECT_MARKER).is_file():
            return candidate
        if candidate == top:
            break
    return None


def contract_files(layer: Layer) -> list[ContractFile]:
    """The `*.prose.md` entries directly in the layer's directory that are not folders, sorted by name.

    A FIFO, a device or a dangling link is listed, so reading it is refused with a reason rather than
    skipped in silence (the read never opens such a thing). A name that is not UTF-8 cannot name a
    contract (nor be written to a spine, a log or stdout): it is left out and `misnamed_files` lists it.
    """
    return [
        ContractFile(layer, path)
        for path in _candidates(layer.directory)
        if not path.is_dir() and len(path.name) > len(SUFFIX) and _utf8(path.name)
    ]


def misnamed_files(layer: Layer) -> list[str]:
    """The layer's `*.prose.md` files whose names are not UTF-8, shown with their bytes escaped."""
    return [shown_name(path.name) for path in _candidates(layer.directory) if not _utf8(path.name)]


def shown_name(name: str) -> str:
    """A file name as text that can always be printed: undecodable bytes as `\\xe9`."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _candidates(directory: Path) -> list[Path]:
    return sorted(path for path in directory.iterdir() if path.name.endswith(SUFFIX))


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # the surrogates Python decodes undecodable bytes of a name to
        return False
    return True


def layer_of(path: Path, layers: list[Layer]) -> Layer | None:
    """The layer whose directory holds `path` directly."""
    resolved = Path(os.path.realpath(path))  # never raises, not even on a link that loops
    for layer in layers:
        if resolved.parent == Path(os.path.realpath(layer.directory)):
            return layer
    return None


def adopted_modules(
    modules: Iterable[str], others: Iterable[str], reads: Iterable[tuple[str, str]], home: Callable[[str], bool]
) -> set[str]:
    """The module contracts (qualified names) a repository's picture shows: those `home` says this home
    runs, and every module contract a shown contract reads, directly or further up (`reads`: upstream,
    reader). `others` are the contracts of the other layers, always shown."""
    modules = set(modules)
    shown = set(others) | {name for name in modules if home(name)}
    upstream: dict[str, set[str]] = {}
    for source, target in reads:
        upstream.setdefault(target, set()).add(source)
    queue = list(shown)
    while queue:
        for source in upstream.get(queue.pop(), ()):
            if source in modules and source not in shown:
                shown.add(source)
                queue.append(source)
    return shown & modules
