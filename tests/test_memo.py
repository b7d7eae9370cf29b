"""Results remembered per record (generator/sizing/memo.py): the same record object gives the result
computed once; another object, even an equal one, is computed again; old entries go."""

from dataclasses import dataclass

from generator.sizing import memo


@dataclass(frozen=True)
class Record:
    name: str


def test_a_result_is_computed_once_per_record_object_and_value(monkeypatch):
    calls = []

    @memo.per_record
    def sized(record, bits):
        calls.append((record.name, bits))
        return [record.name, bits]  # a new list each time it is computed

    first = Record("a")
    assert sized(first, 4) is sized(first, 4)  # the same object: remembered
    assert sized(first, 8) == ["a", 8]  # another value: computed
    equal = Record("a")
    assert sized(equal, 4) is not sized(first, 4)  # an equal record is another object: computed again
    assert calls == [("a", 4), ("a", 8), ("a", 4)]


def test_only_the_last_results_are_kept(monkeypatch):
    monkeypatch.setattr(memo, "KEPT", 2)
    calls = []

    @memo.per_record
    def named(record):
        calls.append(record.name)
        return record.name

    a, b, c = Record("a"), Record("b"), Record("c")
    named(a), named(b), named(c)  # a is pushed out by c
    named(c), named(a)
    assert calls == ["a", "b", "c", "a"]
