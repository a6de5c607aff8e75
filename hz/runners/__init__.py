"""Model runners: the think step of a turn (offline, pydantic-ai models, the claude-code and codex CLIs)."""
