"""The site: view models, rendering, the MkDocs runs, the cache, post-build files, publishing."""
