"""VRAM Guide: catalog -> sizing -> site. `python -m generator --help` lists the commands."""
