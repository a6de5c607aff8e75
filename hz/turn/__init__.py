"""Turns: why an agent wakes (causes), how a wake runs (the engine), what it may spend (caps), what the
model sees (context), what it did to the world exactly once (the ledger) and where its drafts go.

Modules here import nothing heavy at top level: the idle tick imports `hz.turn.causes` only.
"""
