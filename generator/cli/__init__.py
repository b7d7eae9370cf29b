"""The command line: build, check, size, add-model."""
