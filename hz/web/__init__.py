"""`hz serve`: the web head over `hz.ops` (pages, REST under /api/v1, Server-Sent Events, MCP over HTTP).

Nothing here decides anything about agents: every page, REST call and stream asks an operation of
`hz.ops` and shows its result. What this package owns is the head itself: who may ask (`auth`, `guard`),
how a result is drawn (`pages`, `templates/`), how a change reaches an open page (`live`), and the
process that serves it on loopback (`serve`). Starlette, uvicorn and Jinja2 are imported only here, so a
plain `hz` command never pays for them.
"""
