"""CLI commands: taxonomy."""
