"""Team state on git: the orphan branch `hz/state`, leases on `refs/hz/lease/<id>`, and their lint.

The turn engine needs three modules:

- `hz.gitstate.lease`: `acquire(team, id, slot=…, identity=…, role=…, now=…, settings=…, due=…)`
  -> `Outcome` (`won`, `held` with the holder, `early` before the grace period, `done`);
  `mine(team, id, now, settings)` says, without network, whether this machine may still act under it.
- `hz.gitstate.writer`: `StateWriter(team, settings).queue(event)` during a tick, then one
  `flush(now)` -> `FlushResult` (hz.gitstate.flush_result: what landed, `fenced` lease ids whose turns
  are abandoned).
- `hz.gitstate.events`: `Event.make(kind, …, data=TurnStarted(…))`, the receipt-grade event models.

`hz.gitstate.remote.TeamRemote(root, remote)` binds a repository and a remote; `hz.gitstate.settings`
reads the team's `[state]` table of `hz.toml`; `hz.gitstate.identity.whoami` says who acts.
"""
