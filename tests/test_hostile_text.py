"""The text rule, tried as an attacker would: every string that reaches a page, a twin, llms.txt,
the sitemap or JSON-LD is one line of at most a bounded length, without control, separator or
bidi characters; link targets are https:// URLs or root-relative paths. Each hostile value is
written into a copy of the fixture catalog (as a YAML escape, as an attacker's PR would) and must
end in exit code 2 and exactly the problem line below."""

from __future__ import annotations

import unicodedata

import pytest

from generator.catalog.schema import NOT_TEXT, single_line
from tests.conftest import FIXTURE, run_build
from tests.hostile import check, edit, run_cli

RULE = "must be a single line of text without control, format, separator or bidi characters"
URL = "must be an https:// URL without spaces, quotes, <, > or backslashes"
GPUS, KIMI = "gpus.yaml", "models/kimi-k3.yaml"
H100_PRICE = "provider: RunPod Community Cloud, date: 2026-09-25, source: \"https://github.com/tgarg01/silybench-data/blob/045df3b/derived/csv/gpu_prices.csv\", note: \"row runpod,H100 SXM"

CASES = [
    # site.yaml: the brand and the currency reach every page's title, llms.txt and JSON-LD.
    ("site.yaml", "brand: Arrakis", 'brand: "Arrakis\\u2028# injected"',
     f"site.yaml:2: brand: {RULE} (found U+2028)"),
    ("site.yaml", "brand: Arrakis", 'brand: "Arrakis\\0"', f"site.yaml:2: brand: {RULE} (found U+0000)"),
    ("site.yaml", "brand: Arrakis", "brand: " + "A" * 201, "site.yaml:2: brand: must be at most 200 characters (got 201)"),
    ("site.yaml", "currency: USD", 'currency: "USD\\x85"', f"site.yaml:10: currency: {RULE} (found U+0085)"),
    ("site.yaml", "console_url: /console/#/models?model={id}", 'console_url: "javascript:alert(1)//{id}"',
     "site.yaml:6: console_url: must be an https:// URL or a root-relative path like /console/, without spaces,"
     " quotes, <, > or backslashes (got 'javascript:alert(1)//{id}')"),
    ("site.yaml", "console_url: /console/#/models?model={id}", "console_url: //evil.example/{id}",
     "site.yaml:6: console_url: must be an https:// URL or a root-relative path like /console/, without spaces,"
     " quotes, <, > or backslashes (got '//evil.example/{id}')"),
    ("site.yaml", "console_url: /console/#/models?model={id}", "console_url: 'https://x.example/?m={id}\"onclick=\"x'",
     "site.yaml:6: console_url: must be an https:// URL or a root-relative path like /console/, without spaces,"
     " quotes, <, > or backslashes (got 'https://x.example/?m={id}\"onclick=\"x')"),
    ("site.yaml", "console_url: /console/#/models?model={id}", "console_url: https://console.example/models",
     "site.yaml:6: console_url: must be a URL pattern containing {id} (got 'https://console.example/models')"),
    ("site.yaml", "base_url: https://gpus.arrakis.example/", "base_url: http://gpus.arrakis.example/",
     f"site.yaml:4: base_url: {URL} (got 'http://gpus.arrakis.example/')"),
    ("site.yaml", "base_url: https://gpus.arrakis.example/", "base_url: \"https://gpus.arrakis.example/'><x/\"",
     f"site.yaml:4: base_url: {URL} (got \"https://gpus.arrakis.example/'><x/\")"),
    ("site.yaml", "base_url: https://gpus.arrakis.example/", "base_url: https://gpus.arrakis.example/#/",
     "site.yaml:4: base_url: must have no query (?) or fragment (#) (got 'https://gpus.arrakis.example/#/')"),
    ("site.yaml", "base_url: https://gpus.arrakis.example/", "base_url: https://admin:hunter2@gpus.arrakis.example/",
     "site.yaml:4: base_url: must not hold a user name or password (got 'https://admin:hunter2@gpus.arrakis.example/')"),
    # invisible format characters: a bidi mark, a zero-width space, a byte-order mark
    ("site.yaml", "brand: Arrakis", 'brand: "Arr\u061Cakis"', f"site.yaml:2: brand: {RULE} (found U+061C)"),
    ("site.yaml", "brand: Arrakis", 'brand: "Arr\u200Bakis"', f"site.yaml:2: brand: {RULE} (found U+200B)"),
    ("site.yaml", "brand: Arrakis", 'brand: "Arrakis\uFEFF"', f"site.yaml:2: brand: {RULE} (found U+FEFF)"),
    # A GPU's price provider and a fact's note: not checked at all before.
    (GPUS, H100_PRICE, H100_PRICE.replace("RunPod Community Cloud", '"RunPod\\n# Injected heading"'),
     f"gpus.yaml:16: gpus.0.price_per_gpu_hour.provider: {RULE} (found U+000A)"),
    (GPUS, H100_PRICE, H100_PRICE.replace("RunPod Community Cloud", "[RunPod]"),
     "gpus.yaml:16: gpus.0.price_per_gpu_hour.provider: must be non-empty text"),
    (GPUS, 'note: "H100 SXM, HBM3, 3,350 GB/s"', 'note: "3,350 GB/s\\n\\n```\\ncode"',
     f"gpus.yaml:13: gpus.0.bandwidth_gb_s.note: {RULE} (found U+000A)"),
    (GPUS, 'note: "H100 SXM, HBM3, 3,350 GB/s"', 'note: "3,350 GB/s \\u202egnp.exe"',
     f"gpus.yaml:13: gpus.0.bandwidth_gb_s.note: {RULE} (found U+202E)"),
    (GPUS, 'note: "H100 SXM, HBM3, 3,350 GB/s"', 'note: "' + "x" * 1001 + '"',
     "gpus.yaml:13: gpus.0.bandwidth_gb_s.note: must be at most 1000 characters (got 1001)"),
    (GPUS, "vendor: NVIDIA\n    memory_gb: {value: 80", 'vendor: "NVIDIA\\u2029"\n    memory_gb: {value: 80',
     f"gpus.yaml:10: gpus.0.vendor: {RULE} (found U+2029)"),
    (GPUS, 'interconnect: {value: "NVLink 4, 900 GB/s", source: "https://knlb',
     'interconnect: {value: "NVLink 4\\x9b", source: "https://knlb', f"gpus.yaml:14: gpus.0.interconnect: {RULE} (found U+009B)"),
    (GPUS, 'source: "https://knlb.pages.dev/ai/numbers"', 'source: "https://knlb.pages.dev/\\x7f"',
     f"gpus.yaml:14: gpus.0.interconnect.source: {RULE} (found U+007F)"),
    # A model's text.
    (KIMI, "name: Kimi-K3", 'name: "Kimi-K3\\u2066"', f"models/kimi-k3.yaml:3: name: {RULE} (found U+2066)"),
    (KIMI, "name: Kimi-K3", 'name: "Kimi-K3\\u200f"', f"models/kimi-k3.yaml:3: name: {RULE} (found U+200F)"),
    (KIMI, "weights: https://huggingface.co/moonshotai/Kimi-K3", "weights: https://huggingface.co/x'title",
     f"models/kimi-k3.yaml:4: weights: {URL} (got \"https://huggingface.co/x'title\")"),
    (KIMI, "weights: https://huggingface.co/moonshotai/Kimi-K3", "weights: https://huggingface.co/x\\y",
     f"models/kimi-k3.yaml:4: weights: {URL} (got 'https://huggingface.co/x\\\\y')"),
    # A key is printed in the problem line: it stays one line.
    (KIMI, "name: Kimi-K3", 'name: Kimi-K3\n"lic\\u2028# ense": MIT',
     "models/kimi-k3.yaml:4: 'lic\\u2028# ense': unknown field (did you mean 'license'?)"),
    (KIMI, "experts_per_token:\n  value: 16", 'experts_per_token:\n  value: 16\n  note: "top\\t16"',
     f"models/kimi-k3.yaml:27: experts_per_token.note: {RULE} (found U+0009)"),
]


@pytest.mark.parametrize("file, old, new, expected", CASES)
def test_hostile_text_is_refused_with_one_line(content_copy, file, old, new, expected):
    edit(content_copy, file, old, new)
    code, lines = check(content_copy)
    assert (code, lines) == (2, [expected, "1 problem in " + content_copy.as_posix() + "."])


@pytest.mark.parametrize(
    "base_url, expected",
    [
        ("https://x.example/'><script>alert(1)</script>",
         f"--base-url: {URL} (got \"https://x.example/'><script>alert(1)</script>/\")"),
        ("javascript:alert(1)//", f"--base-url: {URL} (got 'javascript:alert(1)//')"),
        ("http://gpus.example/", f"--base-url: {URL} (got 'http://gpus.example/')"),
        ("http://localhost:8000/a b/",
         "--base-url: must be an http:// URL without spaces, quotes, <, > or backslashes (got 'http://localhost:8000/a b/')"),
        # the localhost exception is the parsed host's: this one is evil.example, over http
        ("http://localhost:80@evil.example/", f"--base-url: {URL} (got 'http://localhost:80@evil.example/')"),
        ("https://gpus.example/?x=/", "--base-url: must have no query (?) or fragment (#) (got 'https://gpus.example/?x=/')"),
        ("https://user:pass@gpus.example/",
         "--base-url: must not hold a user name or password (got 'https://user:pass@gpus.example/')"),
    ],
)
def test_base_url_option_follows_the_site_yaml_rule(tmp_path, base_url, expected):
    out = tmp_path / "site"
    code, lines = run_cli("build", "--content", str(FIXTURE), "--out", str(out), "--base-url", base_url)
    assert (code, lines) == (2, [expected])
    assert not out.exists()


def test_the_text_rule_refuses_every_control_format_and_separator_character():
    """NOT_TEXT is written out for Unicode 14: it must hold every Cc, Cf, Zl and Zp character of the
    running Python, and nothing a name is made of."""
    hidden = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp")]
    assert [f"U+{ord(ch):04X}" for ch in hidden if not NOT_TEXT.fullmatch(ch)] == []
    assert NOT_TEXT.search("Kimi-K3 — Qwen3 Ação 数据 (MoE) ü") is None
    # schema.single_line skips the pattern for printable ASCII: it must hold no such character
    assert [c for c in range(128) if chr(c).isprintable() == bool(NOT_TEXT.match(chr(c)))] == []
    with pytest.raises(ValueError, match="U\\+0009"):
        single_line("Kimi\tK3", 200)


MARKUP = "<img src=x onerror=alert(1)>"


def test_markup_in_the_brand_and_quotes_in_a_source_url_land_as_text(content_copy, tmp_path):
    """The real build: the brand's markup is escaped everywhere the theme prints it, and a source
    URL's quote, parenthesis or bracket is percent-encoded, so the note after it still shows."""
    edit(content_copy, "site.yaml", "brand: Arrakis", f"brand: '{MARKUP}'")
    edit(content_copy, GPUS, 'source: "https://knlb.pages.dev/ai/numbers"',
         "source: 'https://x.example/it''s(a)\"b\"<c>\\d'")
    out = tmp_path / "site"
    result = run_build(content_copy, out)
    assert result.returncode == 0, result.stderr
    pages = [path.read_text(encoding="utf-8") for path in out.rglob("*.html")]
    assert pages and not any("<img src=x" in page for page in pages)
    assert all("&lt;img src=x onerror=alert(1)&gt;" in page for page in pages)
    assert (out / "llms.txt").read_text(encoding="utf-8").startswith("# &lt;img src=x onerror=alert(1)&gt; GPU")
    h100 = [page for page in pages if 'href="https://x.example/it%27s%28a%29%22b%22%3Cc%3E%5Cd"' in page]
    assert len(h100) == 2  # the H100 page in both languages
    assert all("(per GPU, bidirectional, citing NVIDIA Hopper Architecture In-Depth)" in page for page in h100)
