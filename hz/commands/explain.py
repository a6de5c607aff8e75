"""`hz explain CODE`: what a code or an event kind means, an example that raises it, and the fix."""

from __future__ import annotations

import json

from hz.errors import EXIT_OK, HzError


def run_explain(word: str | None, *, as_json: bool = False, list_all: bool = False, markdown: bool = False) -> int:
    from hz.codes import catalog, render

    if markdown:
        print(render.markdown(catalog.CODES, catalog.KINDS), end="")
        return EXIT_OK
    if list_all:
        if as_json:
            entries: list[catalog.Entry] = [*catalog.CODES, *catalog.KINDS]
            print(json.dumps([render.as_json(e) for e in entries], indent=2, ensure_ascii=False))
        else:
            print(render.listing(catalog.CODES, catalog.KINDS))
        return EXIT_OK
    if word is None:
        raise HzError("name a code or an event kind", hint="hz explain HZC011; `hz explain --list` shows them all")
    entries = catalog.find(word)
    if not entries:
        near = catalog.closest(word)
        guess = f"did you mean {', '.join(near)}? " if near else ""
        raise HzError(f"no code or event kind '{word}'", hint=f"{guess}`hz explain --list` shows them all")
    if as_json:
        print(json.dumps([render.as_json(e) for e in entries], indent=2, ensure_ascii=False))
    else:
        print("\n\n".join(render.text(e) for e in entries))
    return EXIT_OK
