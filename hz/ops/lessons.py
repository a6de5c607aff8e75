"""What an agent learned from a person's edits, and dismissing a lesson (hz.heinzel.lessons does the work)."""

from __future__ import annotations

from typing import cast

from hz.heinzel.lessons import dismiss, lessons
from hz.heinzel.lifecycle import resolve
from hz.ops import SCHEMA_VERSION
from hz.ops.context import Context
from hz.ops.models_actions import DismissRequest, DismissResult, HideRequest, HideResult, LessonsResult
from hz.ops.models_agents import AgentRequest, Lesson
from hz.session.store import Store


def list_lessons(ctx: Context, request: AgentRequest) -> LessonsResult:
    with Store.from_environ(ctx.environ) as store:
        row = resolve(store, request.name)
        found = [cast(Lesson, lesson.as_dict()) for lesson in lessons(store, row)]
    return {"schema_version": SCHEMA_VERSION, "agent": str(row["name"]), "lessons": found}


def dismiss_lesson(ctx: Context, request: DismissRequest) -> DismissResult:
    with Store.from_environ(ctx.environ) as store:
        row = resolve(store, request.name)
        changed = dismiss(store, row, request.lesson, now=ctx.moment())
    said = f"lesson {request.lesson} of {row['name']} {'dismissed' if changed else 'was already dismissed'}"
    return {"schema_version": SCHEMA_VERSION, "agent": str(row["name"]), "lesson": request.lesson,
            "dismissed": changed, "said": said}  # fmt: skip


def hide_line(ctx: Context, request: HideRequest) -> HideResult:
    from hz.heinzel.context_edits import hide

    with Store.from_environ(ctx.environ) as store:
        row = resolve(store, request.name)
        what = hide(store, row, request.target, replacement=request.replacement, now=ctx.moment())
    instead = request.replacement
    shown = f"shows the model {instead!r} instead" if instead is not None else "hides it from the model"
    said = f"{row['name']}: {what} {request.target} {shown}; the record itself is unchanged"
    return {"schema_version": SCHEMA_VERSION, "agent": str(row["name"]), "target": request.target, "what": what,
            "replacement": instead, "said": said}  # fmt: skip
