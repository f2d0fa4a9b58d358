"""The conformance comparator on its own (FORMAT.md rules), without the engine."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

from restartkit._conformance import Mismatch, compare, partial_eq


def test_partial_objects_and_numbers() -> None:
    partial_eq({"a": 1}, {"a": 1.0, "b": 2})
    partial_eq({"a": None}, {})
    with pytest.raises(Mismatch, match="expected 2 items, got 1"):
        partial_eq({"a": [1, 2]}, {"a": [1]})
    with pytest.raises(Mismatch, match=r'\.a: expected "x", got "y"'):
        partial_eq({"a": "x"}, {"a": "y"})
    with pytest.raises(Mismatch, match="missing"):
        partial_eq({"a": {"b": 1}}, {"a": {}})


def test_bool_is_not_a_number() -> None:
    with pytest.raises(Mismatch):
        partial_eq({"a": True}, {"a": 1})
    with pytest.raises(Mismatch):
        partial_eq({"a": 0}, {"a": False})


def test_nested_partial_lists_compare_elementwise() -> None:
    partial_eq({"xs": [{"a": 1}]}, {"xs": [{"a": 1, "b": 2}]})
    with pytest.raises(Mismatch, match=r"\[0\]\.a"):
        partial_eq({"xs": [{"a": 1}]}, {"xs": [{"a": 2}]})


GOT_ERRORS: List[Dict[str, Any]] = [{"field": "a", "type": "FieldValueRequired", "message": "a: Required value"}]
GOT: Dict[str, Any] = {"valid": False, "errors": GOT_ERRORS}


def test_error_sets() -> None:
    compare({"valid": False, "errors": [{"field": "a", "type": "FieldValueRequired"}]}, GOT)
    with pytest.raises(Mismatch, match="unexpected error"):
        compare({"valid": False, "errors": []}, GOT)
    compare({"valid": False, "errors": [], "errorsComplete": False}, GOT)
    with pytest.raises(Mismatch, match="missing error"):
        compare({"errors": [{"field": "a", "type": "FieldValueInvalid"}]}, GOT)
    with pytest.raises(Mismatch, match="missing error"):
        compare({"errors": [{"field": "b", "type": "FieldValueRequired"}]}, GOT)


def test_untyped_errors_match_by_message() -> None:
    # An untyped expectation accounts for a typed error of the result by message.
    compare({"errors": [{"field": "ignored", "type": None, "message": "Required"}]}, GOT)
    two = {"errors": GOT_ERRORS + [{"field": "b", "type": "FieldValueForbidden", "message": "b: Forbidden"}]}
    with pytest.raises(Mismatch, match="unexpected error {b, FieldValueForbidden}"):
        compare({"errors": [{"field": "x", "type": None, "message": "Required"}]}, two)
    with pytest.raises(Mismatch, match="no error message contains"):
        compare({"errors": [{"field": "a", "type": None, "message": "Forbidden"}]}, GOT)
    untyped_got = {"errors": [{"field": "x", "type": None, "message": "the webhook says no"}]}
    compare({"errors": [{"type": None, "message": "says no"}]}, untyped_got)
    with pytest.raises(Mismatch, match="unexpected error"):
        compare({"errors": []}, untyped_got)


def test_error_messages_and_missing_keys() -> None:
    compare({"errorMessages": ["Required"]}, GOT)
    with pytest.raises(Mismatch, match="no error message contains"):
        compare({"errorMessages": ["nope"]}, GOT)
    with pytest.raises(Mismatch, match='result has no "action"'):
        compare({"action": "Restart"}, GOT)
    with pytest.raises(Mismatch):
        compare({"valid": True}, GOT)
