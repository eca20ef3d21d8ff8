"""pptjudge: the reference judge for editable slide reconstruction."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pptjudge")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+src"
