"""The search index's parts (generator/site/search_index.py): even parts of at most N pages of one
language, so Pagefind's memory stays bounded whatever the site's size."""

import pytest

from generator.site.search_index import bundle_folder, search_parts


@pytest.mark.parametrize("pages, most, sizes", [
    (16, 5, [4, 4, 4, 4]),  # 4 parts, as even as they come
    (1000, 1000, [1000]),
    (1001, 1000, [501, 500]),
    (5053, 1000, [843, 843, 843, 843, 843, 838]),  # 5,000 models and 53 GPUs of a language
    (0, 1000, [0]),
])
def test_parts_hold_at_most_the_pages_asked_and_every_page_once(pages, most, sizes):
    paths = [f"models/m{index:05}" for index in range(pages)]
    parts = search_parts(list(reversed(paths)), most)
    assert [len(part) for part in parts] == sizes
    assert [page for part in parts for page in part] == paths  # sorted, each once


def test_the_first_part_is_the_bundle_the_search_page_loads():
    assert [bundle_folder(part) for part in range(3)] == ["pagefind", "pagefind/part-1", "pagefind/part-2"]
