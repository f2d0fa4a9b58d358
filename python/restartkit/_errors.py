"""Exceptions raised by restartkit. Every error from the Rust core arrives as one of these."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple

from ._model import Diagnostic

if TYPE_CHECKING:
    from ._types import FieldErrorDict

__all__ = ["RestartkitError", "ValidationError"]


class RestartkitError(Exception):
    """A request restartkit could not answer (unreadable input, an unknown op, an input of the
    wrong shape, a document that is not YAML, ...).

    ``diagnostics`` holds every diagnostic; ``message``, ``field``, ``type``, ``line`` and
    ``column`` are those of the first one.
    """

    diagnostics: Tuple[Diagnostic, ...]
    message: str
    field: str
    type: Optional[str]
    line: Optional[int]
    column: Optional[int]

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        diags = tuple(diagnostics)
        if not diags:
            diags = (Diagnostic(severity="error", field="", type=None, message="unknown error", origin="restartkit"),)
        first = diags[0]
        self.diagnostics = diags
        self.message = first.message
        self.field = first.field
        self.type = first.type
        self.line = first.line
        self.column = first.column
        super().__init__(self._render())

    def _render(self) -> str:
        d = self.diagnostics[0]
        where = f" (line {d.line}, column {d.column})" if d.line is not None else ""
        more = f" (and {len(self.diagnostics) - 1} more)" if len(self.diagnostics) > 1 else ""
        return f"{d.message}{where}{more}"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.diagnostics,))


class ValidationError(RestartkitError, ValueError):
    """Raised by :func:`restartkit.check` when the object is invalid: upstream would reject it.

    Like pydantic-core's ``ValidationError``: :meth:`errors` lists the Kubernetes field errors,
    :meth:`error_count` counts them, ``str()`` shows them all.
    """

    def _render(self) -> str:
        n = len(self.diagnostics)
        lines = [f"{n} validation error{'s' if n != 1 else ''}"]
        for d in self.diagnostics:
            where = f" [line {d.line}, column {d.column}]" if d.line is not None else ""
            lines.append(f"  {d.field or '<object>'}{where}\n    {d.message} [type={d.type}]")
        return "\n".join(lines)

    def errors(self) -> List[FieldErrorDict]:
        """Each error as a dict: ``field``, ``type`` (the apimachinery ``field.ErrorType`` Go name
        or None), ``message``, ``detail``, ``bad_value``, ``origin``, ``line``, ``column``."""
        return [
            {
                "field": d.field,
                "type": d.type,
                "message": d.message,
                "detail": d.detail,
                "bad_value": d.bad_value,
                "origin": d.origin,
                "line": d.line,
                "column": d.column,
            }
            for d in self.diagnostics
        ]

    def error_count(self) -> int:
        """How many errors there are."""
        return len(self.diagnostics)


def _from_json(text: str) -> RestartkitError:
    """Builds a RestartkitError from a JSON list of diagnostics (used by the native module)."""
    raw = json.loads(text)
    return RestartkitError([Diagnostic._from_dict(d) for d in raw])
