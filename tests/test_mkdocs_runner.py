"""The MkDocs build's own pieces (mkdocs_runner.py) held to what MkDocs would do without them."""

import fnmatch
import io
import json

import jinja2
from mkdocs.config import load_config

from generator.site.mkdocs_runner import _load, _theme_loader
from generator.site.progress import Progress


def test_the_theme_loader_lists_the_files_mkdocs_keeps_of_the_theme(tmp_path):
    # MkDocs lists every file of the theme and leaves out those below a dot folder ('.*', '*/.*',
    # structure/files.py); the loader does not walk those folders (Material's .icons): the same
    # files are left once MkDocs' patterns are applied
    (tmp_path / "docs").mkdir()
    (tmp_path / "overrides" / ".hidden").mkdir(parents=True)
    (tmp_path / "overrides" / ".hidden" / "icon.svg").write_text("<svg/>")
    (tmp_path / "overrides" / "extra.css").write_text("a{}")
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text(json.dumps({"site_name": "x", "docs_dir": str(tmp_path / "docs"),
                                       "theme": {"name": "material", "custom_dir": str(tmp_path / "overrides")}}))
    config = load_config(config_file=str(config_file))
    dirs = list(config.theme.dirs)

    def kept(names):
        return [name for name in names if not any(fnmatch.fnmatch(name.lower(), pattern) for pattern in (".*", "*/.*"))]
    every = jinja2.FileSystemLoader(dirs).list_templates()
    listed = _theme_loader(dirs).list_templates()
    assert ".icons/material/account.svg" in every and ".hidden/icon.svg" in every
    assert listed == kept(every) and "extra.css" in listed
    assert len(every) - len(listed) > 10_000  # the icons not walked


def test_the_build_lists_the_theme_with_that_loader(tmp_path):
    config_file = tmp_path / "mkdocs.yml"
    (tmp_path / "docs").mkdir()
    config_file.write_text(json.dumps({"site_name": "x", "docs_dir": str(tmp_path / "docs"), "theme": {"name": "material"}}))
    config = _load(config_file, Progress(io.StringIO()), lambda html, depth: html)
    config = config.plugins.on_config(config)
    listed = config.theme.get_env().loader.list_templates()  # as mkdocs/commands/build.py asks for it
    assert "main.html" in listed and not [name for name in listed if name.startswith(".") or "/." in name]
