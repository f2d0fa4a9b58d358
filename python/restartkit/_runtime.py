"""The one runtime of the generated op wrappers (_ops.py) and of the hand-written conveniences:
how a Python value becomes an op's input (objects, text or files, kubernetes models, runtimes,
keyword options in snake_case) and how an answer or a failure comes back."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import RestartkitError
from ._model import Diagnostic
from ._sweep import read_text_or_path

#: Anything restartkit accepts as a Kubernetes object.
KubeObject = Union[Mapping[str, Any], str, bytes, "os.PathLike[str]", Any]


# ---------------------------------------------------------------------------------------------
# Input conversion

_api_client: Any = None


def _sanitize_kubernetes(obj: Any) -> Any:
    """Converts an object of the official ``kubernetes`` package to API JSON (camelCase)."""
    global _api_client
    if _api_client is None:
        from kubernetes.client import ApiClient  # imported lazily: an optional dependency

        _api_client = ApiClient()
    return _api_client.sanitize_for_serialization(obj)


def _is_kubernetes_model(obj: Any) -> bool:
    t = type(obj)
    return hasattr(t, "openapi_types") and hasattr(t, "attribute_map")


def _decode_text(b: bytes) -> str:
    """UTF-8 text from bytes, or a RestartkitError (code ``invalid-utf8``) naming the line and
    column of the first byte that is not UTF-8: the core's check, as every front end reports it."""
    return _native.text_from_bytes(b)


def _first_document(text: Union[str, bytes, "os.PathLike[str]"], what: str) -> Any:
    if isinstance(text, bytes):
        text = _decode_text(text)
    text, _ = read_text_or_path(text, what)
    docs = json.loads(_native.parse_source(text))
    if not docs:
        raise RestartkitError(
            [Diagnostic(severity="error", field=what, type=None, message=f"{what}: the text holds no document", origin="restartkit", code="invalid-input")]
        )
    return docs[0]


def _has_to_dict(obj: Any) -> bool:
    """A model that gives its API JSON with ``to_dict()`` (the Kubeflow SDK's
    ``kubeflow_trainer_api`` models; the ``kubernetes`` package's are handled apart: their
    ``to_dict()`` gives Python attribute names, not the API's)."""
    return callable(getattr(obj, "to_dict", None)) and not _is_kubernetes_model(obj)


def _plain(obj: Any, what: str) -> Any:
    """A Kubernetes object as plain JSON-able data (dict)."""
    if isinstance(obj, Mapping):
        return obj
    if isinstance(obj, (str, bytes, os.PathLike)):
        return _first_document(obj, what)
    if _is_kubernetes_model(obj):
        return _sanitize_kubernetes(obj)
    if _has_to_dict(obj):
        return obj.to_dict()
    raise TypeError(
        f"{what} must be a dict, YAML/JSON text, a file path, a kubernetes client object (V1Pod, V1Job, ...) or a model with to_dict(), not {type(obj).__name__}"
    )


def _find_unencodable(value: Any, path: str, depth: int = 0) -> Optional[Tuple[str, str]]:
    """Where a value json cannot encode sits, and why (only run after json.dumps failed)."""
    if depth > 200:
        return (path, "nested too deeply")
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if value == value and value not in (float("inf"), float("-inf")) else (path, f"{value} is not a finite number")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                return (path, f"map keys must be strings, not {type(k).__name__}")
            found = _find_unencodable(v, f"{path}.{k}" if path else k, depth + 1)
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            found = _find_unencodable(v, f"{path}[{i}]", depth + 1)
            if found:
                return found
        return None
    if _is_kubernetes_model(value):
        return None
    return (path, f"a value of Python type {type(value).__name__} is not JSON data")


def _default(o: Any) -> Any:
    if _is_kubernetes_model(o):
        return _sanitize_kubernetes(o)
    raise TypeError(type(o).__name__)


def _dumps(value: Any, field: str) -> str:
    """JSON text of ``value``; a value JSON cannot hold raises RestartkitError naming its field."""
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"), default=_default)
    except RecursionError:
        raise RestartkitError(
            [Diagnostic(severity="error", field=field, type=None, message=f"{field}: the object is nested too deeply", origin="restartkit", code="invalid-input")]
        ) from None
    except (TypeError, ValueError) as e:
        found = _find_unencodable(value, field)
        where, why = found if found else (field, str(e))
        raise RestartkitError(
            [Diagnostic(severity="error", field=where, type=None, message=f"{where}: {why}", origin="restartkit", code="invalid-input")]
        ) from None


def _encode(op: str, inp: Mapping[str, Any]) -> str:
    return '{"op":%s,"input":%s}' % (json.dumps(op), _dumps(inp, "input"))


def _decode(text: str) -> Tuple[Any, Tuple[Diagnostic, ...]]:
    return _unpack(json.loads(text))


def _request(op: str, inp: Mapping[str, Any]) -> Tuple[Any, Tuple[Diagnostic, ...]]:
    """One contract call. Plain dicts go to the core without JSON text (``_native.call``); an
    input only JSON text can explain (NaN, non-str keys, client objects) takes that path, so
    its error names the field."""
    resp = _native.call(op, inp)
    if resp is None:
        return _decode(_native.handle_json(_encode(op, inp)))
    return _unpack(resp)


def _unpack(resp: Dict[str, Any]) -> Tuple[Any, Tuple[Diagnostic, ...]]:
    if resp.get("status") != "ok":
        raise RestartkitError([Diagnostic._from_dict(d) for d in resp.get("errors", [])])
    warnings = tuple(Diagnostic._from_dict(d) for d in resp.get("warnings", []))
    return resp.get("result"), warnings


def _options(kubernetes_version: Optional[str], feature_gates: Optional[Mapping[str, bool]]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    if kubernetes_version is not None:
        out["kubernetesVersion"] = str(kubernetes_version)
    if feature_gates is not None:
        out["featureGates"] = dict(feature_gates)
    return out


def request(op: str, input: Mapping[str, Any]) -> Any:
    """Runs any contract operation (``validate``, ``crrValidate``, ``containerRestart``,
    ``containerRestartable``, ``matchRestartRule``, ``statusTransition``, ``podFailurePolicy``,
    ``jobsetFailurePolicy``, ``backoff``, ``describe``, and any the core adds) with ``input`` in the
    contract's camelCase shape, and returns its ``result``. Raises :class:`RestartkitError` when
    the request fails."""
    return _request(op, input)[0]




#: A Kubeflow TrainingRuntime or ClusterTrainingRuntime (or several), given beside a TrainJob:
#: anything :data:`KubeObject` is, or a sequence of them.
RuntimeLike = Union[KubeObject, Sequence[KubeObject]]


def _runtimes_input(runtime: Optional[RuntimeLike]) -> List[Dict[str, Any]]:
    """The contract's ``runtimes`` (RuntimeInput objects) for ``runtime=``."""
    if runtime is None:
        return []
    items: Sequence[Any]
    if isinstance(runtime, (Mapping, str, bytes, os.PathLike)) or _is_kubernetes_model(runtime) or _has_to_dict(runtime):
        items = [runtime]
    else:
        items = list(runtime)
    out: List[Dict[str, Any]] = []
    for i, r in enumerate(items):
        what = "runtime" if len(items) == 1 else f"runtime[{i}]"
        if isinstance(r, bytes):
            r = _decode_text(r)
        if isinstance(r, (str, os.PathLike)):
            text, file_name = read_text_or_path(r, what)
            entry: Dict[str, Any] = {"source": text}
            if file_name is not None:
                entry["fileName"] = file_name
            out.append(entry)
        else:
            out.append({"object": _plain(r, what)})
    return out


def _validate_input(
    obj: KubeObject,
    kubernetes_version: Optional[str],
    feature_gates: Optional[Mapping[str, bool]],
    skip_defaulting: bool,
    file_name: Optional[str],
    field_validation: Optional[str] = None,
    runtime: Optional[RuntimeLike] = None,
) -> Dict[str, Any]:
    inp = _options(kubernetes_version, feature_gates)
    if field_validation is not None:
        inp["fieldValidation"] = field_validation
    path = _put_object(inp, obj)
    if skip_defaulting:
        inp["skipDefaulting"] = True
    if file_name is None:
        file_name = path
    if file_name is not None:
        inp["fileName"] = file_name
    runtimes = _runtimes_input(runtime)
    if runtimes:
        inp["runtimes"] = runtimes
    return inp


def _put_object(inp: Dict[str, Any], obj: KubeObject) -> Optional[str]:
    """Puts ``obj`` into a validate-like input: text as ``source``, an object as ``object``.
    Returns the path of the file read, when ``obj`` named one."""
    if isinstance(obj, bytes):
        obj = _decode_text(obj)
    if isinstance(obj, (str, os.PathLike)):
        text, path = read_text_or_path(obj, "obj")
        inp["source"] = text
        return path
    if isinstance(obj, Mapping):
        inp["object"] = obj
    elif _is_kubernetes_model(obj):
        inp["object"] = _sanitize_kubernetes(obj)
    elif _has_to_dict(obj):
        inp["object"] = obj.to_dict()
    else:
        raise TypeError(
            f"obj must be a dict, YAML/JSON text, a file path, a kubernetes client object (V1Pod, V1Job, ...) or a model with to_dict(), not {type(obj).__name__}"
        )
    return None




def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _input(args: Iterable[Tuple[str, str, Any]], options: Mapping[str, Any], text_members: Sequence[str] = ()) -> Dict[str, Any]:
    """An op's input from its positional arguments (member, kind, value; the kinds of
    ``restartkit::contract::ArgKind``) and its keyword options (snake_case or camelCase; ``None``
    is absent; ``runtime=`` is the contract's ``runtimes``)."""
    inp: Dict[str, Any] = {}
    path: Optional[str] = None
    for key, value in options.items():
        if value is None:
            continue
        if key == "runtime":
            runtimes = _runtimes_input(value)
            if runtimes:
                inp["runtimes"] = runtimes
            continue
        member = _camel(key)
        if member in text_members and isinstance(value, (str, bytes, os.PathLike)):
            value = _first_document(value, member)
        inp[member] = value
    for member, kind, value in args:
        if kind == "objectOrText":
            sub: Dict[str, Any] = {}
            path = _put_object(sub, value)
            if "object" in sub:
                inp[member] = sub["object"]
            else:
                inp["source"] = sub["source"]
        elif kind == "object":
            inp[member] = _plain(value, member)
        elif kind == "objects":
            inp[member] = [_plain(v, f"{member}[{i}]") for i, v in enumerate(value)]
        else:
            inp[member] = value
    if path is not None and "fileName" not in inp:
        inp["fileName"] = path
    return inp


def call(op: str, args: Iterable[Tuple[str, str, Any]], options: Mapping[str, Any], text_members: Sequence[str] = ()) -> Any:
    """Runs one op from a generated wrapper's arguments and returns its result; raises
    RestartkitError naming the field."""
    return _request(op, _input(args, options, text_members))[0]
