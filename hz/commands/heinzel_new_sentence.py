"""`hz heinzel new NAME --say "…"`: propose a Heinzelmännchen from a sentence instead of a file.

The runner writes the contract text; from there on it is `hz heinzel new --from` exactly: the same
compile (any HZC error refuses, nothing is created), the same `proposed` state, the same `hz approve`.
What the think step cost is printed; it is not recorded on the spine (see docs/decisions.md). The ledger
counts it, though: its requests are the user's spending like a turn's, reserved under the day cap and the
turn cap (hz.spend), so a spent day refuses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from hz.config import load_user_config
from hz.heinzel import lifecycle
from hz.heinzel.from_sentence import compile_sentence, refuse_offline, request_for
from hz.heinzel.identity import BadName, check_name, check_namespace
from hz.session.store import Store
from hz.spend.gate import LedgerGate, ledger_of
from hz.spend.ledger import Limits
from hz.turn.engine import new_turn_id

if TYPE_CHECKING:
    from hz.runners.base import Runner


def new_from_sentence_command(
    out: TextIO,
    name: str,
    sentence: str,
    *,
    namespace: str,
    environ: Mapping[str, str],
    now: datetime | None = None,
    runner: Runner | None = None,
) -> int:
    """`runner` is the seam for tests; None means the user's configured default runner."""
    config = load_user_config(environ)
    check_namespace(namespace)
    check_name(name)

    def clock() -> datetime:
        return now or datetime.now(UTC)

    with Store.from_environ(environ) as store:
        _free(store, name, namespace)  # before paying for a model call
        ledger = ledger_of(store, clock())
    thinker = runner or _configured_runner(config.raw, environ)
    if thinker.name == "offline":
        raise refuse_offline()
    request = request_for(sentence, name=name, namespace=namespace, handle=config.handle,
                          timezone=config.timezone, max_usd=config.heinzel.max_usd)  # fmt: skip
    limits = Limits(config.heinzel.max_usd, config.heinzel.max_usd_per_day)
    # a turn of its own for the turn cap: one compile's requests together, never another compile's
    gate = LedgerGate(ledger, agent=f"{namespace}:{name}", turn=f"compile:{new_turn_id(clock())}",
                      runner=str(thinker.name), limits=limits, clock=clock)  # fmt: skip
    compiled = compile_sentence(thinker, replace(request, spend=gate))
    with Store.from_environ(environ) as store:
        agent_id = lifecycle.create(
            store, compiled.text, label=f"{name}.prose.md (written from your sentence)", namespace=namespace,
            handle=config.handle, origin=lifecycle.Origin("sentence"), now=now or datetime.now(UTC), name=name,
        )  # fmt: skip
    reason = " ".join(compiled.reason.split())  # the model's words, kept on one line
    out.write(
        f"{namespace}:{name} is proposed ({agent_id}): {reason}\n"
        f"the model wrote its contract for ${compiled.usage.usd:.4f}: read it with `hz heinzel show {name}`, "
        f"then `hz approve {name}`\n"
    )
    return 0


def _free(store: Store, name: str, namespace: str) -> None:
    taken = store.index.agent(name, namespace)
    if taken is not None:
        raise BadName(
            f"{namespace}:{name} exists already ({taken['id']}, {taken['state']})",
            hint="pick another name, or rename the other one",
        )


def _configured_runner(raw: Mapping[str, object], environ: Mapping[str, str]) -> Runner:
    from hz.runners.registry import get_runner, resolve_name
    from hz.runners.settings import RunnerSettings

    settings = RunnerSettings.from_config(raw)
    if resolve_name(None, settings) == "offline":
        raise refuse_offline()
    return get_runner(None, settings, environ)
