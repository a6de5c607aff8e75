"""Spend: the day's durable ledger of model requests, and the gate a turn hands its runner."""
