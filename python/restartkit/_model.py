"""Immutable result objects."""

from __future__ import annotations

from dataclasses import dataclass, field as _field
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Tuple

if TYPE_CHECKING:
    from ._types import ResolveOutput, ValidateOutput

__all__ = ["Diagnostic", "DocumentSummary", "TrainJobResult", "ValidationResult"]


@dataclass(frozen=True)
class Diagnostic:
    """One finding, in the shape every restartkit front end uses.

    ``field`` is the Kubernetes field path (``spec.containers[0].restartPolicy``), ``type`` the
    apimachinery ``field.ErrorType`` Go name (``FieldValueNotSupported``) or None where upstream
    returns a plain message, ``line``/``column`` the 1-based position when the input was text.
    """

    severity: str
    field: str
    type: Optional[str]
    message: str
    origin: str
    detail: Optional[str] = None
    bad_value: Any = None
    code: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    document: Optional[int] = None
    #: The file ``line`` and ``column`` refer to when it is not the input's own text (a
    #: TrainJob's runtime given apart).
    file: Optional[str] = None

    @classmethod
    def _from_dict(cls, d: Mapping[str, Any]) -> "Diagnostic":
        return cls(
            severity=str(d.get("severity", "error")),
            field=str(d.get("field", "")),
            type=d.get("type"),
            message=str(d.get("message", "")),
            origin=str(d.get("origin", "restartkit")),
            detail=d.get("detail"),
            bad_value=d.get("badValue"),
            code=d.get("code"),
            line=d.get("line"),
            column=d.get("column"),
            document=d.get("document"),
            file=d.get("file"),
        )

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class DocumentSummary:
    """One document of a validated YAML/JSON stream."""

    index: int
    api_version: Optional[str]
    kind: Optional[str]
    name: Optional[str]
    line: int
    modelled: bool
    valid: bool


@dataclass(frozen=True, repr=False)
class ValidationResult:
    """What :func:`restartkit.validate` returns: ``valid`` (no error), ``errors``, ``warnings``,
    ``infos`` (tuples of :class:`Diagnostic`), the ``kubernetes_version`` modelled and, for text
    input, one :class:`DocumentSummary` per document. ``raw`` is the contract's JSON result."""

    valid: bool
    errors: Tuple[Diagnostic, ...]
    warnings: Tuple[Diagnostic, ...]
    infos: Tuple[Diagnostic, ...]
    kubernetes_version: str
    documents: Tuple[DocumentSummary, ...]
    raw: "ValidateOutput" = _field(compare=False, hash=False)

    @classmethod
    def _from_output(cls, out: "ValidateOutput", warnings: Tuple[Diagnostic, ...] = ()) -> "ValidationResult":
        raw: Dict[str, Any] = dict(out)
        return cls(
            valid=bool(raw.get("valid", False)),
            errors=tuple(Diagnostic._from_dict(d) for d in raw.get("errors", [])),
            warnings=tuple(Diagnostic._from_dict(d) for d in raw.get("warnings", [])) + warnings,
            infos=tuple(Diagnostic._from_dict(d) for d in raw.get("infos", [])),
            kubernetes_version=str(raw.get("kubernetesVersion", "")),
            documents=tuple(
                DocumentSummary(
                    index=int(d.get("index", 0)),
                    api_version=d.get("apiVersion"),
                    kind=d.get("kind"),
                    name=d.get("name"),
                    line=int(d.get("line", 0)),
                    modelled=bool(d.get("modelled", False)),
                    valid=bool(d.get("valid", False)),
                )
                for d in raw.get("documents", [])
            ),
            raw=out,
        )

    def __repr__(self) -> str:
        first = f", first={self.errors[0].message!r}" if self.errors else ""
        return (
            f"ValidationResult(valid={self.valid}, errors={len(self.errors)}, "
            f"warnings={len(self.warnings)}, kubernetes_version={self.kubernetes_version!r}{first})"
        )


@dataclass(frozen=True, repr=False)
class TrainJobResult:
    """What :func:`restartkit.trainjob` returns: the JobSet Kubeflow Trainer creates for the
    TrainJob (``job_set``, a dict, or None when it creates none: ``not_built`` says why), the
    other objects it creates (``objects``: ConfigMaps, Secrets, PodGroups, each with the fields
    restartkit leaves out), and ``valid``, ``errors``, ``warnings``, ``infos`` for the TrainJob,
    its runtime and the JobSet (each :class:`Diagnostic` at the TrainJob or runtime field its
    value came from). ``train_jobs`` holds one entry per TrainJob of the input; ``raw`` is the
    contract's ``resolve`` result."""

    valid: bool
    job_set: Optional[Dict[str, Any]]
    objects: Tuple[Dict[str, Any], ...]
    not_built: Optional[Diagnostic]
    errors: Tuple[Diagnostic, ...]
    warnings: Tuple[Diagnostic, ...]
    infos: Tuple[Diagnostic, ...]
    train_jobs: Tuple[Dict[str, Any], ...]
    kubernetes_version: str
    raw: "ResolveOutput" = _field(compare=False, hash=False)

    @classmethod
    def _from_output(cls, out: "ResolveOutput", warnings: Tuple[Diagnostic, ...] = ()) -> "TrainJobResult":
        raw: Dict[str, Any] = dict(out)
        tjs = tuple(dict(t) for t in raw.get("trainJobs", []))
        first: Dict[str, Any] = tjs[0] if tjs else {}
        nb = first.get("notBuilt")
        return cls(
            valid=bool(raw.get("valid", False)),
            job_set=first.get("jobSet"),
            objects=tuple(dict(o.get("object", {})) for o in first.get("objects", [])),
            not_built=Diagnostic._from_dict(nb) if isinstance(nb, Mapping) else None,
            errors=tuple(Diagnostic._from_dict(d) for d in raw.get("errors", [])),
            warnings=tuple(Diagnostic._from_dict(d) for d in raw.get("warnings", [])) + warnings,
            infos=tuple(Diagnostic._from_dict(d) for d in raw.get("infos", [])),
            train_jobs=tjs,
            kubernetes_version=str(raw.get("kubernetesVersion", "")),
            raw=out,
        )

    def __repr__(self) -> str:
        first = f", first={self.errors[0].message!r}" if self.errors else ""
        built = "JobSet" if self.job_set is not None else "no JobSet"
        return f"TrainJobResult(valid={self.valid}, {built}, errors={len(self.errors)}, warnings={len(self.warnings)}{first})"
