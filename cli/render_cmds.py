"""CLI commands: render."""
