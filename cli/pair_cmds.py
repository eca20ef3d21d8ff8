"""CLI commands: pair."""
