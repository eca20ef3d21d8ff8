"""CLI commands: generate."""
