"""The typer CLI: parses, calls library functions, prints."""
