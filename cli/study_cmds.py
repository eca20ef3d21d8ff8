"""CLI commands: study."""
