"""Durable sessions: one append-only spine per Heinzelmännchen, turn bodies, the inbox and the index.

Modules, from the line up:
- `kinds` the event kind and step names (no pydantic), `vocabulary` a payload model per kind;
- `envelope` one line (format, parse, hash), `migrate` old kinds and shapes read as today's;
- `lock` the one-writer flock and the marks writers leave for the index, `spine` read and append;
- `bodies` turn bodies and their expiry, `inbox` messages on disk before anything acts on them;
- `schema`, `projection` (event -> SQL), `fold` (the same rows in memory, for rebuilds), `rows` (those
  rows inserted in bulk), `replay` (every spine folded, in worker processes when there are many),
  `queries`, `index` (the derived SQLite file), and `store`, the facade the rest of hz uses.

Importing `hz.session` imports nothing heavy; only writers import pydantic (through `vocabulary`).
"""
