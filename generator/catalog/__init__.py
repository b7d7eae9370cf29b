"""The catalog: typed records, YAML reading and checking, loading content/, add-model's readers."""
