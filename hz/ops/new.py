"""Propose a new Heinzelmännchen from a contract's text or from a sentence; `approve` lets it wake.

From a sentence, the runner writes the contract text; from there on it is the same as from a file: the
same compile (any HZC error refuses, nothing is created), the same `proposed` state. What the think step
cost is said, not recorded on the spine (see docs/decisions.md). The ledger counts it, though: its
requests are the person's spending like a turn's, reserved under the day cap and the turn cap (hz.spend).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from hz.config import load_user_config
from hz.errors import HzError
from hz.heinzel import lifecycle
from hz.ops import SCHEMA_VERSION
from hz.ops.context import Context
from hz.ops.models_actions import NewRequest, NewResult
from hz.session.store import Store

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hz.runners.base import Runner


def new_agent(ctx: Context, request: NewRequest, *, runner: Runner | None = None) -> NewResult:
    """`runner` is the seam for tests; None means the person's configured default runner."""
    if (request.contract is None) == (request.say is None):
        raise HzError("give exactly one of a contract's text or a sentence", hint="hz heinzel new NAME --from FILE")
    if request.say is not None:
        return _from_sentence(ctx, request, request.say, runner)
    assert request.contract is not None
    config = load_user_config(ctx.environ)
    label = request.source or f"{request.name}.prose.md"
    with Store.from_environ(ctx.environ) as store:
        agent_id = lifecycle.create(
            store, request.contract, label=label, namespace=request.namespace, handle=config.handle,
            origin=lifecycle.Origin("file", _file_name(request.source)), now=ctx.moment(), name=request.name,
        )  # fmt: skip
    named = f"{request.namespace}:{request.name}"
    said = f"{named} is proposed ({agent_id}): read its contract, then `hz approve {request.name}`"
    return _result(agent_id, request, [said])


def _file_name(source: str | None) -> str | None:
    from pathlib import PurePath

    return None if source is None else PurePath(source).name


def _result(agent_id: str, request: NewRequest, said: list[str]) -> NewResult:
    return {"schema_version": SCHEMA_VERSION, "id": agent_id, "name": request.name, "namespace": request.namespace,
            "state": "proposed", "said": said}  # fmt: skip


def _from_sentence(ctx: Context, request: NewRequest, sentence: str, runner: Runner | None) -> NewResult:
    from hz.heinzel.from_sentence import compile_sentence, refuse_offline, request_for
    from hz.heinzel.identity import check_name, check_namespace
    from hz.spend.gate import LedgerGate, ledger_of
    from hz.spend.ledger import Limits
    from hz.turn.engine import new_turn_id

    config = load_user_config(ctx.environ)
    name, namespace = request.name, request.namespace
    check_namespace(namespace)
    check_name(name)
    with Store.from_environ(ctx.environ) as store:
        _free(store, name, namespace)  # before paying for a model call
        ledger = ledger_of(store)
    thinker = runner or _configured_runner(config.raw, ctx.environ)
    if thinker.name == "offline":
        raise refuse_offline()
    asked = request_for(sentence, name=name, namespace=namespace, handle=config.handle,
                        timezone=config.timezone, max_usd=config.heinzel.max_usd)  # fmt: skip
    limits = Limits(config.heinzel.max_usd, config.heinzel.max_usd_per_day)
    # a turn of its own for the turn cap: one compile's requests together, never another compile's
    gate = LedgerGate(ledger, agent=f"{namespace}:{name}", turn=f"compile:{new_turn_id(ctx.moment())}",
                      runner=str(thinker.name), limits=limits)  # fmt: skip
    compiled = compile_sentence(thinker, replace(asked, spend=gate))
    with Store.from_environ(ctx.environ) as store:
        agent_id = lifecycle.create(
            store, compiled.text, label=f"{name}.prose.md (written from your sentence)", namespace=namespace,
            handle=config.handle, origin=lifecycle.Origin("sentence"), now=ctx.moment(), name=name,
        )  # fmt: skip
    reason = " ".join(compiled.reason.split())  # the model's words, kept on one line
    return _result(agent_id, request, [
        f"{namespace}:{name} is proposed ({agent_id}): {reason}",
        f"the model wrote its contract for ${compiled.usage.usd:.4f}: read it with `hz heinzel show {name}`, "
        f"then `hz approve {name}`",
    ])  # fmt: skip


def _free(store: Store, name: str, namespace: str) -> None:
    from hz.heinzel.identity import BadName

    taken = store.index.agent(name, namespace)
    if taken is not None:
        raise BadName(
            f"{namespace}:{name} exists already ({taken['id']}, {taken['state']})",
            hint="pick another name, or rename the other one",
        )


def _configured_runner(raw: Mapping[str, object], environ: Mapping[str, str]) -> Runner:
    from hz.heinzel.from_sentence import refuse_offline
    from hz.runners.registry import get_runner, resolve_name
    from hz.runners.settings import RunnerSettings

    settings = RunnerSettings.from_config(raw)
    if resolve_name(None, settings) == "offline":
        raise refuse_offline()
    return get_runner(None, settings, environ)
