"""HZC024: bidi overrides and control characters in a contract's text are refused (issue 20, finding 9).

A title with U+202E passed validation and reached the graph page and pull request titles. Every string
of the frontmatter is checked, keys too, in whatever spelling YAML allows (the character itself or its
`\\u` escape in a double-quoted string).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from hz.codes.contract_example import BASE
from hz.contract.load import load_text
from hz.contract.textcheck import BIDI, forbidden

HINT = "delete the character: text in a contract reads as it is stored, left to right, with no control codes"
BAD = sorted(BIDI) + [chr(c) for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F, *range(0x80, 0xA0))]


def codes(text: str) -> list[tuple[str, str, str]]:
    return [(d.code, d.loc, d.message) for d in load_text(text).diagnostics if d.code == "HZC024"]


def quoted(text: str) -> str:
    """`text` as a YAML double-quoted string: what is not printable as its escape, the rest as itself.

    A combining mark is escaped too: hz reads a contract as NFC, and a raw mark right after an escape
    (`\\u200e` then U+0300) would join the escape's last digit into `è`, no escape any more (HZC001)."""
    import unicodedata

    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char.isprintable() and not unicodedata.combining(char):
            out.append(char)
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def titled(title: str) -> str:
    return BASE.replace("title: Weekly digest", f"title: {quoted(title)}", 1)


def test_a_right_to_left_override_in_the_title_is_refused_with_its_place_and_hint() -> None:
    [found] = [d for d in load_text(titled("Weekly digest \u202eexe.txt")).diagnostics if d.code == "HZC024"]
    assert (found.code, found.severity, found.loc, found.message, found.hint) == (
        "HZC024", "error", "hz.title", "hz.title holds right-to-left override (U+202E) at character 15", HINT
    )  # fmt: skip
    assert (found.line, found.column) == (BASE.splitlines().index("  title: Weekly digest") + 1, 10)


@settings(max_examples=150, deadline=None)
@given(
    before=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20),
    bad=st.sampled_from(BAD),
    after=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20),
)
@example(before="", bad="\u200e", after="\u0300")  # a mark after the escape: see `quoted`
def test_any_title_holding_a_bidi_or_control_character_is_refused(before: str, bad: str, after: str) -> None:
    """Written as a JSON string (which is YAML), so every character arrives as itself, escapes included."""
    title = (before + bad + after)[:80]
    if bad not in title:
        title = bad
    found = codes(titled(title))
    index = next(i for i, c in enumerate(title) if forbidden(c))
    assert found[:1] and found[0][:2] == ("HZC024", "hz.title"), (title, found)
    assert found[0][2].endswith(f"at character {index + 1}")


@settings(max_examples=100, deadline=None)
@given(title=st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")).filter(lambda c: c not in BIDI),
                     min_size=1, max_size=80))  # fmt: skip
def test_text_without_such_characters_is_never_refused_for_it(title: str) -> None:
    assert codes(titled(title)) == []


def test_a_description_key_or_list_item_is_checked_too_and_tabs_and_newlines_are_not() -> None:
    line = "description: Keeps a weekly digest of the repository's history."
    text = BASE.replace(line, f"description: {quoted('line one' + chr(10) + chr(9) + 'line two' + chr(7))}", 1)
    text = text.replace("  title: Weekly digest\n", '  title: Weekly digest\n  labels:\n    - "ok\\u202d"\n', 1)
    assert codes(text) == [
        ("HZC024", "description", "description holds control character U+0007 at character 19"),
        ("HZC024", "hz.labels[0]", "hz.labels[0] holds left-to-right override (U+202D) at character 3"),
    ]  # an unknown key (HZC002) is no reason to keep quiet about what it holds
    assert codes(BASE.replace(line, f"description: {quoted('line one' + chr(10) + chr(9) + 'line two')}", 1)) == []


def test_the_search_finds_what_the_rule_forbids_at_every_code_point() -> None:
    """`first_forbidden` searches with one character class; `forbidden` is the rule, character by character."""
    from hz.contract.textcheck import first_forbidden

    for code in range(0x110000):
        char = chr(code)
        assert (first_forbidden(f"ab{char}") is not None) == forbidden(char), hex(code)
    assert first_forbidden("a\tb\u202ec\x07") == (3, "\u202e")
