"""The build cache's dictionaries written by appending (generator/site/json_lines.py)."""

import json

from generator.site.json_lines import JsonLines


def lines(file) -> list:
    return [json.loads(line) for line in file.read_text(encoding="utf-8").split("\n") if line]


def test_entries_are_appended_and_the_last_line_of_a_key_wins(tmp_path):
    file = tmp_path / "kept" / "rows.jsonl"
    log = JsonLines(file)
    assert log.entries == {}
    log.save({"a": {"md": "1"}, "b": [2]}, {"a", "b"})
    JsonLines(file).save({"a": {"md": "one"}}, {"a", "b"})
    assert lines(file) == [["a", {"md": "1"}], ["b", [2]], ["a", {"md": "one"}]]  # appended, not written again
    assert JsonLines(file).entries == {"a": {"md": "one"}, "b": [2]}
    JsonLines(file).save({}, {"a"})  # nothing new: the file is left as it is
    assert len(lines(file)) == 3


def test_the_file_is_written_again_with_the_wanted_entries_once_it_holds_twice_their_lines(tmp_path):
    file = tmp_path / "rows.jsonl"
    for index in range(18):  # up to 2 × 1 + 16 lines, each build appends
        JsonLines(file).save({f"k{index}": index}, {f"k{index}"})
        assert len(lines(file)) == index + 1
    JsonLines(file).save({"k18": 18}, {"k18"})
    assert lines(file) == [["k18", 18]]
    assert JsonLines(file).entries == {"k18": 18}


def test_a_line_cut_short_is_skipped_and_the_next_entry_starts_a_line(tmp_path):
    file = tmp_path / "rows.jsonl"
    file.write_text('["a",1]\n["b",{"md":"cut', encoding="utf-8")
    log = JsonLines(file)
    assert log.entries == {"a": 1}
    log.save({"c": 3}, {"a", "b", "c"})
    assert JsonLines(file).entries == {"a": 1, "c": 3}


def test_text_that_python_reads_as_line_breaks_stays_in_its_entry(tmp_path):
    file = tmp_path / "rows.jsonl"
    name = "Model\u2028two\x85three\r"
    JsonLines(file).save({"a": name}, {"a"})
    assert JsonLines(file).entries == {"a": name}


def test_lines_that_are_not_key_value_pairs_are_skipped(tmp_path):
    file = tmp_path / "rows.jsonl"
    file.write_text('["a",1]\n[2,"two"]\n["b"]\n{"c":3}\nnull\n["d",[4]]\n', encoding="utf-8")
    assert JsonLines(file).entries == {"a": 1, "d": [4]}
