"""Relative links between the site's files (generator/site/paths.py), as posixpath.relpath gives them."""

import posixpath

import pytest

from generator.site.paths import plan_data_url, relative_html_link, relative_path, relative_source_link


@pytest.mark.parametrize("path, start, relative", [
    ("models/kimi-k3.md", "gpus", "../models/kimi-k3.md"),
    ("models/kimi-k3.md", ".", "models/kimi-k3.md"),
    ("models/kimi-k3.md", "", "models/kimi-k3.md"),
    ("models/kimi-k3.md", "models", "kimi-k3.md"),
    ("fit.md", "models", "../fit.md"),
    ("en/models/kimi-k3.html", "pt/models", "../../en/models/kimi-k3.html"),
    ("pt/models", "pt/models", "."),
    ("assets/plan", "en/gpus", "../../assets/plan"),
    ("a/b/c", "a/b/c/d", ".."),
])
def test_a_relative_path_is_the_way_from_its_start(path, start, relative):
    assert relative_path(path, start) == relative


@pytest.mark.parametrize("start", ["", ".", "en", "pt/models", "en/gpus", "models", "assets/plan/models"])
@pytest.mark.parametrize("path", ["index.md", "models/kimi-k3.md", "en/models/kimi-k3.html", "assets/plan", "pt/fit.html"])
def test_a_relative_path_is_posixpaths(path, start):
    assert relative_path(path, start) == posixpath.relpath(path, start or ".")


def test_the_site_links_between_pages_and_to_the_data():
    assert relative_source_link("gpus/b300", "models/kimi-k3") == "../models/kimi-k3.md"
    assert relative_source_link("index", "models/kimi-k3") == "models/kimi-k3.md"
    assert relative_html_link("pt", "models/kimi-k3", "en", "models/kimi-k3") == "../../en/models/kimi-k3.html"
    assert relative_html_link("en", "index", "en", "gpus/b300") == "gpus/b300.html"
    assert plan_data_url("en", "models/kimi-k3") == "../../assets/plan"
    assert plan_data_url("pt", "fit") == "../assets/plan"
