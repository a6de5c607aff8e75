"""Durable sessions: one append-only spine per Heinzelmännchen, turn bodies, the inbox and the index.

Kept light on purpose: importing `hz.session` imports nothing heavy. The pydantic payload models live in
`hz.session.vocabulary` and are imported only by writers; readers and the index use plain JSON.
"""
