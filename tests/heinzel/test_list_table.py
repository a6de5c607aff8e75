"""`hz heinzel list`'s table: the fast renderer prints exactly what a plain column-by-column one prints."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from hz.commands.heinzel_list import HEADER, PENDING, render
from hz.session.queries import ListLine


def plain(lines: list[ListLine], spent: dict[str, float]) -> str:
    """The obvious renderer: every cell as a string, each column as wide as its widest cell."""
    table = [HEADER] + [
        (f"{ns}:{name}", state, f"v{version}" if version else "-",
         (due or "-").replace("T", " ").removesuffix("Z"), PENDING[pending], f"{spent.get(id_, 0):.2f}", id_)
        for ns, name, state, version, due, pending, id_ in lines
    ]  # fmt: skip
    widths = [max(len(row[column]) for row in table) for column in range(6)]
    return "".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)) + f"  {row[6]}\n"
                   for row in table)  # fmt: skip


text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=30)
line = st.tuples(
    st.sampled_from(["me", "project", "team"]),
    text,
    st.sampled_from(["proposed", "asleep", "awake", "waiting", "paused", "retired"]),
    st.none() | st.integers(min_value=1, max_value=12_000),
    st.none() | st.sampled_from(["2026-01-09T15:00:00Z", "2026-11-29T08:00:00Z", "2027-03-28T01:30:00Z"]),
    st.integers(min_value=0, max_value=7),
    st.from_regex(r"hz-[0-9A-HJKMNP-TV-Z]{26}", fullmatch=True),
)


@given(st.lists(line, min_size=1, max_size=40), st.data())
def test_the_table_equals_the_plain_rendering(lines: list[ListLine], data: st.DataObject) -> None:
    ids = [x[6] for x in lines] + ["hz-01JB0000000000000000000000"]  # an agent the filter left out
    spent = data.draw(st.dictionaries(st.sampled_from(ids), st.floats(min_value=0, max_value=99_999.0), max_size=5))
    out = io.StringIO()
    render(lines, spent, out)
    assert out.getvalue() == plain(lines, spent)


def test_an_empty_list_says_how_to_make_one() -> None:
    out = io.StringIO()
    render([], {}, out)
    assert out.getvalue() == "no Heinzelmännchen yet (hz heinzel new NAME --from FILE, or hz workflow migrate)\n"
