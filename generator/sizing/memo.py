"""Remembering what a pure function of a catalog record returned, for the pages of one build.

Records are immutable but not hashable (their mappings are read-only views), so a result is kept
by the record's identity, with the record itself: an identity is never reused while its entry lives.
A model page plans thousands of setups, and each plan used to list the model's tensors again.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import wraps
from typing import Callable, TypeVar

Result = TypeVar("Result")
KEPT = 4096  # results remembered at once: a model page's few, and the GPU pages' one per model


def per_record(function: Callable[..., Result]) -> Callable[..., Result]:
    """`function(record, *values)`, computed once per record object and hashable values, while they
    are among the last KEPT asked."""
    kept: OrderedDict[tuple, tuple[object, Result]] = OrderedDict()

    @wraps(function)
    def remembered(record, *values):
        key = (id(record), *values)
        found = kept.get(key)
        if found is not None and found[0] is record:
            kept.move_to_end(key)
            return found[1]
        result = function(record, *values)
        kept[key] = (record, result)
        if len(kept) > KEPT:
            kept.popitem(last=False)
        return result
    return remembered
