"""Pages point at the one assets folder both languages share (generator/site/shared_assets.py)."""

import pytest

from generator.site.errors import BuildError
from generator.site.shared_assets import point_at_shared_assets, share_assets

# (HTML as MkDocs writes it, folders between the page and its language folder, HTML after)
REWRITES = [
    ('<link rel="stylesheet" href="assets/stylesheets/main.css">', 0,
     '<link rel="stylesheet" href="../assets/stylesheets/main.css">'),
    ('<script src="./assets/javascripts/bundle.js"></script>', 0,  # a static template (search.html)
     '<script src="../assets/javascripts/bundle.js"></script>'),
    ('<script src="../assets/javascripts/planner.js" defer></script>', 1,
     '<script src="../../assets/javascripts/planner.js" defer></script>'),
    ('<link rel="icon" href="../../assets/images/favicon.png">', 2,
     '<link rel="icon" href="../../../assets/images/favicon.png">'),
    # the not-found page's addresses are absolute, from the site's path
    ('<link rel="stylesheet" href="/docs/pt/assets/stylesheets/main.css">', 0,
     '<link rel="stylesheet" href="/docs/assets/stylesheets/main.css">'),
    # already moved: left as it is, so a page can go through twice
    ('<link rel="stylesheet" href="../../assets/x.css">', 1, '<link rel="stylesheet" href="../../assets/x.css">'),
    ('<link rel="stylesheet" href="/docs/assets/x.css">', 0, '<link rel="stylesheet" href="/docs/assets/x.css">'),
    # not an asset MkDocs wrote: links, text, other folders
    ('<a href="assets/x.css">assets/x.css</a>', 0, '<a href="assets/x.css">assets/x.css</a>'),
    ('<p>href="assets/x.css"</p>', 0, '<p>href="assets/x.css"</p>'),
    ('<link rel="alternate" href="../pt/models.html">', 0, '<link rel="alternate" href="../pt/models.html">'),
    ('<script src="../pagefind/pagefind-ui.js"></script>', 0, '<script src="../pagefind/pagefind-ui.js"></script>'),
]


@pytest.mark.parametrize("before, depth, after", REWRITES)
def test_asset_addresses_move_to_the_shared_folder(before, depth, after):
    assert point_at_shared_assets(before, depth, absolute_prefix="/docs/pt/", shared_prefix="/docs/") == after
    assert point_at_shared_assets(after, depth, absolute_prefix="/docs/pt/", shared_prefix="/docs/") == after


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_both_languages_copies_become_one_folder_and_stale_files_go(tmp_path):
    for lang in ("pt", "en"):
        write(tmp_path / lang / "assets" / "stylesheets" / "main.2.css", "new theme")
        write(tmp_path / lang / "assets" / "javascripts" / "lunr" / "lunr.pt.js", "its search")
        write(tmp_path / lang / "assets" / "javascripts" / "workers" / "search.1.js", "its search")
    write(tmp_path / "assets" / "stylesheets" / "main.1.css", "old theme")  # a previous build's
    write(tmp_path / "assets" / "plan" / "models" / "kimi-k3.json", "{}")  # the calculator's data
    share_assets(tmp_path, ("pt", "en"))
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert files == ["assets/plan/models/kimi-k3.json", "assets/stylesheets/main.2.css"]
    assert not (tmp_path / "assets" / "javascripts").exists()  # emptied folders go too


def test_files_that_differ_between_languages_stop_the_build(tmp_path):
    write(tmp_path / "pt" / "assets" / "javascripts" / "x.js", "portugues")
    write(tmp_path / "en" / "assets" / "javascripts" / "x.js", "english")
    with pytest.raises(BuildError, match=r"en/assets/javascripts/x\.js: differs between languages"):
        share_assets(tmp_path, ("pt", "en"))
