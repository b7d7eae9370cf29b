"""Templates are compiled once and kept beside their sources, as Python keeps its `.pyc`: a build's
workers load them instead of compiling every template again."""

import shutil

from generator.site.cache import build_key
from generator.site.render import COMPILED_DIR, TEMPLATES_DIR, Renderer
from generator.site.view_models import build_page


def _render_models_index(templates, catalog):
    renderer = Renderer(catalog.site, "en", templates)
    return renderer.render_page(build_page(catalog, "models"), twin=False).markdown


def test_a_renderer_keeps_the_templates_it_compiled_and_the_next_one_renders_the_same(tmp_path, catalog):
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES_DIR, templates, ignore=shutil.ignore_patterns(COMPILED_DIR))
    first = _render_models_index(templates, catalog)
    kept = sorted((templates / COMPILED_DIR).iterdir())
    assert kept and all(path.name.startswith("__jinja2_") for path in kept)
    mtimes = [path.stat().st_mtime_ns for path in kept]
    assert _render_models_index(templates, catalog) == first
    assert [path.stat().st_mtime_ns for path in kept] == mtimes  # loaded, not compiled and written again
    # an edited template is compiled again: its checksum is the source's
    index = templates / "models.md.j2"
    index.write_text(index.read_text(encoding="utf-8") + "\nEDITED\n", encoding="utf-8")
    assert _render_models_index(templates, catalog).rstrip().endswith("EDITED")


def test_a_folder_that_cannot_be_written_means_compiling_again(tmp_path, catalog):
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES_DIR, templates, ignore=shutil.ignore_patterns(COMPILED_DIR))
    (templates / COMPILED_DIR).write_text("a file where the folder would be")
    assert _render_models_index(templates, catalog).startswith("# GPU requirements of open-weight models")


def test_the_compiled_templates_are_not_part_of_the_builds_key(catalog):
    key = build_key(catalog)
    stray = TEMPLATES_DIR / COMPILED_DIR / "__jinja2_stray.cache"
    stray.parent.mkdir(exist_ok=True)
    try:
        stray.write_bytes(b"compiled")
        assert build_key(catalog) == key
    finally:
        stray.unlink()


def test_mkdocs_keeps_the_themes_compiled_templates_there_too(built_site):
    from hashlib import sha1

    from mkdocs.config import load_config

    config = load_config(config_file=str(built_site.parent / ".site.cache" / "mkdocs-en.yml"))
    main = config.theme.get_env().get_template("main.html")  # Material's, through our overrides
    key = sha1(f"main.html|{main.filename}".encode()).hexdigest()  # Jinja2's BytecodeCache.get_cache_key
    assert (TEMPLATES_DIR / COMPILED_DIR / f"__jinja2_{key}.cache").is_file()


def test_a_compiled_template_cut_short_or_corrupt_is_compiled_again(tmp_path, catalog):
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES_DIR, templates, ignore=shutil.ignore_patterns(COMPILED_DIR))
    first = _render_models_index(templates, catalog)
    for kept in (templates / COMPILED_DIR).iterdir():
        kept.write_bytes(kept.read_bytes()[:20])  # its header, then nothing it can read
    assert _render_models_index(templates, catalog) == first
