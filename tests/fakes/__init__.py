"""Loopback fakes of the remote model endpoints hz's model runner talks to, shared by every test folder."""
