"""Making candidates: synthetic diagrams with injected, labelled defects; the agent runner."""
