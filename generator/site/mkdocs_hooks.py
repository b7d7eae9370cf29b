"""MkDocs hooks (loaded by path from the generated mkdocs.yml): count pages as MkDocs writes them."""

from generator.site import progress


def on_post_page(output, page, config):
    progress.current.advance()
    return output
