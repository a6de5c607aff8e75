"""The index's schema in one place, with its version: a different version means drop and rebuild.

Every table is derived from the spines (`hz.session.projection`), so nothing here is ever migrated:
the index is thrown away and replayed, which is cheap and always right.
"""

from __future__ import annotations

SCHEMA_VERSION = 5  # 3: spines_broken, so the list's warning query reads no row per agent; 4: agents.repo_*;
# 5: the agent page's rows (hz.session.page_rows), so showing an agent reads no spine

TABLES = ("spines", "agents", "assets", "watched", "versions", "turns", "waits", "keys", "effects",
          "drafts", "lessons", "amendments", "questions", "costs", "skips", "turn_marks", "summaries", "edits", "fates",
          "answer_waits")  # fmt: skip

SCHEMA = """
CREATE TABLE spines (agent TEXT PRIMARY KEY, size INTEGER NOT NULL, last_seq INTEGER NOT NULL, head TEXT,
                     broken_seq INTEGER, problem TEXT);
CREATE INDEX spines_broken ON spines (agent) WHERE problem IS NOT NULL;
CREATE TABLE agents (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, namespace TEXT NOT NULL, handle TEXT, origin TEXT, source TEXT,
    created_at TEXT, approved INTEGER NOT NULL DEFAULT 0, paused INTEGER NOT NULL DEFAULT 0,
    retired INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL DEFAULT 'proposed',
    contract_name TEXT, contract_version INTEGER, contract_fingerprint TEXT, assets TEXT NOT NULL DEFAULT '[]',
    inputs TEXT NOT NULL DEFAULT '{}', next_due TEXT, due_at TEXT, last_turn TEXT, last_turn_at TEXT,
    pending_draft TEXT, pending_amendment TEXT, pending_question TEXT, last_summary_seq INTEGER,
    repo_root TEXT, repo_remote TEXT, repo_path TEXT);
CREATE INDEX agents_due ON agents (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX agents_name ON agents (namespace, name);
CREATE INDEX agents_state ON agents (state);
CREATE TABLE assets (agent TEXT NOT NULL, asset TEXT NOT NULL, PRIMARY KEY (agent, asset));
CREATE INDEX assets_asset ON assets (asset);
CREATE TABLE watched (agent TEXT NOT NULL, input TEXT NOT NULL, sources TEXT NOT NULL DEFAULT '[]',
                      fingerprint TEXT, PRIMARY KEY (agent, input));
CREATE TABLE versions (agent TEXT NOT NULL, version INTEGER NOT NULL, contract_fingerprint TEXT,
                       source_fingerprint TEXT, amendment_id TEXT, approved INTEGER NOT NULL DEFAULT 0,
                       at TEXT, PRIMARY KEY (agent, version));
CREATE TABLE turns (agent TEXT NOT NULL, turn TEXT NOT NULL, seq INTEGER, cause TEXT, causes TEXT,
                    contract_version INTEGER, parent_turn TEXT, started_at TEXT, status TEXT NOT NULL,
                    step TEXT, disposition TEXT, reason TEXT, usd REAL NOT NULL DEFAULT 0, finished_at TEXT,
                    report TEXT, PRIMARY KEY (agent, turn));
CREATE INDEX turns_status ON turns (status) WHERE status IN ('running', 'waiting');
CREATE TABLE waits (agent TEXT NOT NULL, turn TEXT NOT NULL, step TEXT, until TEXT, on_kind TEXT,
                    on_input TEXT, on_fingerprint_not TEXT, on_key TEXT, since TEXT,
                    PRIMARY KEY (agent, turn));
CREATE INDEX waits_until ON waits (until);
CREATE TABLE keys (agent TEXT NOT NULL, key TEXT NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL,
                   turn TEXT, PRIMARY KEY (agent, key));
CREATE TABLE effects (agent TEXT NOT NULL, key TEXT NOT NULL, effect TEXT, status TEXT NOT NULL, turn TEXT,
                      hash TEXT, PRIMARY KEY (agent, key));
CREATE TABLE drafts (agent TEXT NOT NULL, key TEXT NOT NULL, turn TEXT, asset TEXT, hash TEXT,
                     contract_version INTEGER, place TEXT, placed_at TEXT, status TEXT NOT NULL,
                     approver TEXT, PRIMARY KEY (agent, key));
CREATE INDEX drafts_status ON drafts (status);
CREATE TABLE lessons (agent TEXT NOT NULL, lesson_id TEXT NOT NULL, seq INTEGER, turn TEXT,
                      sentence TEXT NOT NULL, hunks TEXT NOT NULL DEFAULT '[]', recorded_at TEXT,
                      dismissed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (agent, lesson_id));
CREATE TABLE amendments (agent TEXT NOT NULL, amendment_id TEXT NOT NULL, seq INTEGER, by_whom TEXT,
                         base_version INTEGER, contract_fingerprint TEXT, source_fingerprint TEXT,
                         sentence TEXT, widens TEXT NOT NULL DEFAULT '[]', status TEXT NOT NULL,
                         version INTEGER, proposed_at TEXT, PRIMARY KEY (agent, amendment_id));
CREATE TABLE questions (agent TEXT NOT NULL, key TEXT NOT NULL, turn TEXT, question TEXT, asked_at TEXT,
                        answered INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (agent, key));
CREATE TABLE costs (agent TEXT NOT NULL, day TEXT NOT NULL, cause TEXT NOT NULL, usd REAL NOT NULL,
                    PRIMARY KEY (agent, day, cause));
CREATE INDEX costs_day ON costs (day);
CREATE TABLE skips (agent TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT, cause TEXT, reason TEXT,
                    usd REAL NOT NULL DEFAULT 0, cap TEXT, PRIMARY KEY (agent, seq));
CREATE TABLE turn_marks (agent TEXT NOT NULL, turn TEXT NOT NULL, cap TEXT, flags TEXT NOT NULL DEFAULT '[]',
                         PRIMARY KEY (agent, turn));
CREATE TABLE summaries (agent TEXT PRIMARY KEY, seq INTEGER NOT NULL, at TEXT, fields TEXT NOT NULL);
CREATE TABLE edits (agent TEXT NOT NULL, seq INTEGER NOT NULL, target TEXT NOT NULL, replacement TEXT, at TEXT,
                    PRIMARY KEY (agent, seq));
CREATE TABLE fates (agent TEXT NOT NULL, request_id TEXT NOT NULL, fate TEXT NOT NULL, turn TEXT,
                    PRIMARY KEY (agent, request_id));
CREATE TABLE answer_waits (agent TEXT NOT NULL, key TEXT NOT NULL, until TEXT NOT NULL, PRIMARY KEY (agent, key));
"""
