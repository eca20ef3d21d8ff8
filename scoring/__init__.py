"""Rounds -> case aggregation, findings -> points, policies, leaderboards and statistics."""
