"""The Heinzelmännchen itself (not its turns): identity, states, contract versions, amendments, lessons.

Everything here is recorded as events on the agent's spine through `hz.session.store.Store` and read
back through the index; the folder `<id>/contract/` keeps the texts of every version and proposal.
"""
