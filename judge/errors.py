"""The project's exceptions: one root, a typed error per kind of failure.

Library code raises these; only ``cli/`` turns them into messages and exit codes.
Every message names the file (and where it applies the check, member or key) at fault.
"""

from __future__ import annotations


class PptJudgeError(Exception):
    """Root of every error pptjudge raises on purpose."""


class PackageError(PptJudgeError):
    """A candidate file is not a readable PowerPoint package (not a zip, truncated, no parts)."""


class UnsafePackageError(PackageError):
    """A candidate package is hostile or over a safety bound (zip bomb, traversal, DOCTYPE)."""


class PackageStructureError(PackageError):
    """A readable zip, safe to read, that is not a usable PowerPoint package (no content types,
    no presentation part, a part that does not parse)."""


class RenderError(PptJudgeError):
    """LibreOffice could not turn a deck into an image."""


class RenderTimeout(RenderError):
    """LibreOffice did not finish a deck within the time limit (the instance was restarted)."""


class RendererUnavailable(PptJudgeError):
    """The judge's renderer failed, not the deck: LibreOffice would not start, or its pool was
    closed. The case is the judge's error (retried on the next run), never the candidate's."""


class ImagePrepError(PptJudgeError):
    """An image could not be read or normalised."""


class TaxonomyError(PptJudgeError):
    """The taxonomy file is malformed; the message names the file and the key or line."""


class ScoringError(PptJudgeError):
    """Findings or round results cannot be scored (e.g. unknown subtype for the taxonomy)."""


class BenchmarkError(PptJudgeError):
    """A benchmark or run directory does not have the layout DESIGN.md describes."""


class BackendError(PptJudgeError):
    """A judge backend could not produce a stage verdict (timeout, HTTP error, bad output)."""


class ReplayMismatch(PptJudgeError):
    """A replayed trajectory diverged from the recording (different tool call or verdict)."""


class ScriptError(ReplayMismatch, BackendError):
    """A replay script that does not parse (``FILE:LINE: what is wrong``); ``judge run`` refuses
    it before judging. A ReplayMismatch for the readers that expected one."""


class LabelsError(PptJudgeError):
    """A human labels file is malformed or names cases the run does not have."""


class SandboxError(PptJudgeError):
    """The sandbox could not be set up (bubblewrap missing, not root, no free uid).

    What the sandboxed code itself does (crash, break a limit) is never an error: it is reported
    in :class:`judge.schema.SandboxOutcome`."""
