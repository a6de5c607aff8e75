"""hz: a git-native team service for durable agents that keep Markdown contracts true."""

__version__ = "0.1.0"
