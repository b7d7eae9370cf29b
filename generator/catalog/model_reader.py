"""One model file (content/models/<slug>.yaml): checked, then made into a `Model` record."""

from __future__ import annotations

from types import MappingProxyType

from generator.catalog import schema
from generator.catalog.architecture_reader import read_architecture
from generator.catalog.fields import CHECKPOINT_FIELDS, MODEL_FIELDS, REMARK
from generator.catalog.records import ApiPrice, Checkpoint, Model, Source
from generator.catalog.schema import Problems, read_record
from generator.catalog.slugs import slugify
from generator.catalog.yaml_file import YamlFile

TODO_MESSAGE = "to-do left by add-model (fill in a value and its source, or delete an optional field)"


def _inconsistencies(values: dict, slug: str, stem: str) -> list[tuple[str, str]]:
    """(field, problem) for the model's values that contradict each other or the file name."""
    checks = [
        (not slug, "name", "must contain letters or digits (the page's slug is made from it)"),
        (slug and slug != stem, "name", f"gives slug '{slug}', so the file must be named {slug}.yaml"),
        (
            values.get("active_params", 0) > values["params"],
            "active_params",
            f"must not exceed params ({values.get('active_params')} > {values['params']})",
        ),
        (
            values.get("experts_per_token", 0) > values.get("experts", float("inf")),
            "experts_per_token",
            "must not exceed experts",
        ),
        (
            values.get("params_without_vision") and not (isinstance(values.get("architecture"), dict)
                                                         and "vision" in values["architecture"]),
            "params_without_vision",
            "needs an architecture with a vision tower (the part the published count leaves out)",
        ),
        (
            values.get("params_without_prediction") and not (isinstance(values.get("architecture"), dict)
                                                             and values["architecture"].get("extra_layers")),
            "params_without_prediction",
            "needs an architecture with extra_layers (the prediction layers the published count leaves out)",
        ),
        (
            ("experts" in values) != ("experts_per_token" in values),
            "experts",
            "experts and experts_per_token go together (mixture-of-experts models give both)",
        ),
    ]
    rope, window = values.get("rope_scaling"), values.get("context_window")
    if rope is not None:
        checks += [
            (window is None, "rope_scaling", "needs context_window (the window it serves)"),
            (window is not None and rope.native_context >= window, "rope_scaling",
             f"native_context must be below context_window ({rope.native_context} >= {window}): no override is needed"),
            (window is not None and rope.original_max_position_embeddings * rope.factor < window, "rope_scaling",
             f"original_max_position_embeddings × factor must reach context_window ({window})"),
        ]
    return [(field, message) for bad, field, message in checks if bad]


def _read_checkpoints(file: YamlFile, entries: list, model_id: str, layers: int | None,
                      problems: Problems) -> tuple[Checkpoint, ...] | None:
    """The `checkpoints` list, each entry checked against CHECKPOINT_FIELDS and against the model
    (its id, its number of layers when it has an architecture)."""
    before, found, seen = len(problems.lines), [], set()
    for index, entry in enumerate(entries):
        where = f"checkpoints.{index}."
        record = read_record(file, entry, where, CHECKPOINT_FIELDS, problems)
        if record is None:
            continue
        fields, _ = record
        bad = [
            (fields["id"] == model_id, "id", "is the published checkpoint (the model's id): list only other checkpoints"),
            (fields["id"] in seen, "id", f"{fields['id']} is listed twice"),
            (layers is not None and any(i >= layers for i in fields.get("layers_kept", ())), "layers_kept",
             f"layer indexes must be below the model's {layers} layers"),
        ]
        for wrong, field, message in bad:
            if wrong:
                problems.add(file, f"{where}{field}", f"{where}{field}", message)
        seen.add(fields["id"])
        note = fields.get("note")
        found.append(Checkpoint(fields["id"], fields["scheme"], fields["quantized"], Source(fields["source"], note),
                                tuple(sorted(fields.get("layers_kept", ()))), fields.get("kv_cache_dtype")))
    return None if len(problems.lines) > before else tuple(found)


def read_model(file: YamlFile, stem: str, problems: Problems) -> Model | None:
    """The model in `file` (named `stem`.yaml), or None after adding its problems."""
    todos = schema.todo_paths(file.data)
    for todo in todos:
        problems.add(file, todo, todo or "(document)", TODO_MESSAGE)
    if todos:
        return None
    record = read_record(file, file.data, "", MODEL_FIELDS, problems)
    if record is None:
        return None
    values, sources = record
    slug = slugify(values["name"])
    found = _inconsistencies(values, slug, stem)
    for field, message in found:
        problems.add(file, field, field, message)
    architecture = None
    if "architecture" in values:
        block = values["architecture"]
        architecture = read_architecture(file, block, "experts" in values, problems)
        if architecture is None:
            return None
        # the block's note passed read_architecture's check: read it again as localized text
        note = block.get("note")
        sources["architecture"] = Source(block["source"], None if note is None else REMARK(note))
    checkpoints = _read_checkpoints(file, values.get("checkpoints", []), values["id"],
                                    architecture.layers if architecture else None, problems)
    if found or checkpoints is None:
        return None
    # every field of MODEL_FIELDS is the Model attribute of the same name, but these five
    built = {"weights", "architecture", "api_price", "checkpoints", "params_without_vision", "params_without_prediction"}
    return Model(
        **{name: values.get(name) for name in MODEL_FIELDS if name not in built},
        slug=slug,
        weights_url=values["weights"],
        architecture=architecture,
        api_price=ApiPrice(**values["api_price"]) if "api_price" in values else None,
        checkpoints=checkpoints,
        params_without_vision=values.get("params_without_vision", False),
        params_without_prediction=values.get("params_without_prediction", False),
        sources=MappingProxyType(sources),
    )
