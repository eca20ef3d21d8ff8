"""The issue taxonomy as maintainer-edited data, and its loader/validator."""
