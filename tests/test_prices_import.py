"""`python -m generator prices import FILE`: prices from a feed, written into gpus.yaml in place."""

import json
import os
import subprocess
import sys
from decimal import Decimal

import pytest

from generator.catalog.loader import load_catalog
from generator.cli.main import main
from tests.conftest import ROOT, twin

HEADER = "gpu,price_per_gpu_hour,provider,date,source\n"


def run(capsys, content, feed):
    code = main(["prices", "import", str(feed), "--content", str(content)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def gpu_page(content, lang="en"):
    return twin(load_catalog(content), lang, "gpus/h100-sxm")


def test_a_csv_feed_rewrites_only_the_price_lines_and_the_next_build_shows_them(tmp_path, content_copy, capsys):
    gpus = content_copy / "gpus.yaml"
    before = gpus.read_text(encoding="utf-8").split("\n")
    feed = tmp_path / "prices.csv"
    feed.write_text(HEADER + "h100-sxm,2.49,RunPod,2026-11-28,https://www.runpod.io/pricing\n"
                    "mi325x,2.10,Vultr,2026-11-20,https://www.vultr.com/pricing/\n", encoding="utf-8")
    assert run(capsys, content_copy, feed) == (0, (
        f"{gpus}: 2 prices imported\n"
        "  h100-sxm: 2.69 (RunPod Community Cloud, 2026-09-25) → 2.49 (RunPod, 2026-11-28)\n"
        "  mi325x: no price → 2.10 (Vultr, 2026-11-20)\n"
        f"{content_copy / 'site.yaml'}: prices_date 2026-09-25 → 2026-11-28 (the day the newest price was read)\n"), "")
    after = gpus.read_text(encoding="utf-8").split("\n")
    changed = [line for line in after if line not in before]
    assert changed == [
        '    price_per_gpu_hour: {value: 2.49, provider: "RunPod", date: 2026-11-28, source: "https://www.runpod.io/pricing"}',
        '    price_per_gpu_hour: {value: 2.10, provider: "Vultr", date: 2026-11-20, source: "https://www.vultr.com/pricing/"}',
    ]
    assert [line for line in before if line not in after] == [next(line for line in before if "value: 2.69" in line)]
    assert before[0].startswith("#") and after[0] == before[0]  # comments kept
    assert "| Price per GPU-hour | $2.49 (RunPod, price of November 28, 2026) |" in gpu_page(content_copy)
    assert "| Preço por GPU-hora | US$\u00a02,49 (RunPod, preço de 28 de novembro de 2026) |" in gpu_page(content_copy, "pt")
    # the pages count a price's age from the newest reading: the L4's, of 2026-01-01, is now stale
    site = (content_copy / "site.yaml").read_text(encoding="utf-8")
    assert "prices_date: 2026-11-28\n" in site and site.count("\n") == (ROOT / "content" / "site.yaml").read_text().count("\n")


def test_a_json_feed(tmp_path, content_copy, capsys):
    feed = tmp_path / "prices.json"
    feed.write_text(json.dumps([{"gpu": "b300", "price_per_gpu_hour": "4.20", "provider": "Arrakis",
                                 "date": "2026-11-29", "source": "https://arrakis.example/prices"}]), encoding="utf-8")
    code, out, err = run(capsys, content_copy, feed)
    assert (code, err) == (0, "") and "b300: 4.6 (Arrakis, 2026-08-27) → 4.20 (Arrakis, 2026-11-29)" in out
    b300 = next(g for g in load_catalog(content_copy).gpus if g.slug == "b300")
    assert (b300.price_per_gpu_hour, b300.price_date) == (Decimal("4.20"), "2026-11-29")


@pytest.mark.parametrize(
    "name, text, problems",
    [
        ("prices.csv", HEADER + "h100-sxm,-1,RunPod,2026-11-28,https://r.example\n",
         ["prices.csv:2: price_per_gpu_hour: must be a number from 0.0001 to 10^6 (got '-1')"]),
        ("prices.csv", HEADER + "h100-sxm,0,RunPod,2026-11-28,https://r.example\n",
         ["prices.csv:2: price_per_gpu_hour: must be a number from 0.0001 to 10^6 (got '0')"]),
        ("prices.csv", HEADER + "tpu-v5,2.0,Google,2026-11-28,https://g.example\n",
         ["prices.csv:2: gpu: no GPU 'tpu-v5' in gpus.yaml (slugs: h100-sxm, h200, b300, rtx-4090, mi300x, mi325x)"]),
        ("prices.csv", HEADER + "h200,3.10,RunPod,2099-01-01,https://r.example\n",
         ["prices.csv:2: date: 2099-01-01 is in the future (today is "]),
        ("prices.csv", HEADER + "h200,3.10,RunPod,2026-02-30,https://r.example\n",
         ["prices.csv:2: date: must be a date YYYY-MM-DD from 2000 to 2100 (got '2026-02-30')"]),
        ("prices.csv", HEADER + "h200,3.10,RunPod,2026-11-01,\n", ["prices.csv:2: source: missing"]),
        ("prices.csv", HEADER + "h200,3.10,,2026-11-01,https://r.example\n", ["prices.csv:2: provider: missing"]),
        ("prices.csv", HEADER + 'h200,3.10,"Run\nPod",2026-11-01,https://r.example\n',
         ["prices.csv:2: provider: must be a single line of text without control, format, separator or bidi characters (found U+000A)"]),
        ("prices.csv", HEADER + "h200,3.10,RunPod,2026-11-01,https://r.example\nh200,3.20,RunPod,2026-11-02,https://r.example\n",
         ["prices.csv:3: gpu: h200 already has a price on line 2"]),
        ("prices.csv", HEADER + "h200,3.10,RunPod\n", ["prices.csv:2: expected 5 columns, got 3"]),
        ("prices.csv", "gpu,price,provider,date,source\n", ["prices.csv:1: the header must be gpu,price_per_gpu_hour,provider,date,source"]),
        ("prices.csv", HEADER, ["prices.csv: no price rows"]),
        ("prices.json", '{"gpu": "h200"}', ["prices.json:1: must be a JSON list of objects"]),
        ("prices.json", '[\n  {"gpu": "h200",\n   "price_per_gpu_hour": 3.1, "provider": "R", "date": "2026-11-01", "source": "s"},\n  7\n]',
         ["prices.json:4: must be an object with the keys"]),
        ("prices.json", '[\n  {"gpu": "h200", oops}\n]', ["prices.json:2: not JSON (Expecting property name enclosed in double quotes)"]),
        ("prices.json", "[" * 100_000, ["prices.json:1: not JSON (nested too deeply)"]),
        ("prices.json", '[\n  {"gpu": "h200", "price_per_gpu_hour": 3.1, "price_per_gpu_hour": 0.01, "provider": "R",'
                        ' "date": "2026-11-01", "source": "s"}\n]',
         ["prices.json:2: 'price_per_gpu_hour': duplicate key (write each key once: the second would silently replace the first)"]),
        ("prices.json", '[{"gpu": "h200", "price_per_gpu_hour": ' + "9" * 4301 + "}]",
         ["prices.json:1: not JSON (a number with too many digits)"]),
    ],
    ids=['negative-price', 'zero-price', 'unknown-gpu', 'future-date', 'no-such-date', 'no-source', 'no-provider', 'newline-in-text', 'same-gpu-twice', 'too-few-columns', 'wrong-header', 'no-rows', 'json-not-a-list', 'json-not-an-object', 'json-syntax', 'json-too-deep', 'json-duplicate-key', 'json-huge-number'],
)
def test_any_bad_row_is_one_line_exit_2_and_nothing_written(tmp_path, content_copy, capsys, name, text, problems):
    gpus = content_copy / "gpus.yaml"
    before = gpus.read_bytes()
    feed = tmp_path / name
    feed.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, content_copy, feed)
    lines = err.splitlines()
    assert (code, out) == (2, "") and gpus.read_bytes() == before
    assert len(lines) == len(problems) + 1 and lines[-1].endswith("; nothing written.")
    for line, expected in zip(lines, problems):
        assert line.startswith(f"{feed.parent}/{expected}"), line


def test_a_feed_that_is_no_text_file(tmp_path, content_copy, capsys):
    big = tmp_path / "big.csv"
    with big.open("wb") as file:  # a sparse file one byte over the feeds' 64 MiB (a day's snapshot: 291 KB)
        file.truncate(64 * 2**20 + 1)
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00gpu")
    for feed, message in [(big, "cannot read it (larger than 64 MiB"), (binary, "not UTF-8 text"), (tmp_path, "cannot read it")]:
        code, _, err = run(capsys, content_copy, feed)
        assert code == 2 and err.startswith(f"{feed}: {message}"), err


def test_an_entry_laid_out_otherwise_is_refused_not_guessed(tmp_path, content_copy, capsys):
    gpus = content_copy / "gpus.yaml"
    text = gpus.read_text(encoding="utf-8").replace("  - slug: h200\n", "  - slug:   h200\n")
    gpus.write_text(text, encoding="utf-8")
    feed = tmp_path / "prices.csv"
    feed.write_text(HEADER + "h200,3.10,RunPod,2026-11-01,https://r.example\n", encoding="utf-8")
    code, out, err = run(capsys, content_copy, feed)
    assert (code, out) == (2, "") and gpus.read_text(encoding="utf-8") == text
    assert err == "prices: gpus.yaml: no line `  - slug: h200` to find its entry by; write this price by hand, " \
                  "or lay the entry out as the others; nothing written\n"


def test_files_of_the_content_folder_it_does_not_need_are_left_unread(tmp_path, content_copy):
    os.mkfifo(content_copy / "notes")  # a FIFO blocks whoever opens it to read
    feed = tmp_path / "prices.csv"
    feed.write_text(HEADER + "h200,3.10,RunPod,2026-11-01,https://r.example\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "generator", "prices", "import", str(feed), "--content", str(content_copy)],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stderr) == (0, "") and "h200: 3.59" in result.stdout
