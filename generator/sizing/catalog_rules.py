"""What `check` asks of a model beyond its file's fields, so that what it accepts also builds: rules
that need the sizing (the catalog reads files and knows no formula). The CLI passes them to
load_catalog. Pure."""

from __future__ import annotations

from generator.catalog.records import Model
from generator.sizing.weights import params_by_component, published_scope_params

# The architecture must add up to the published parameter count: within 0.5 % of an exact count,
# 1 % of a card's rounded one (a count ending in six zeros: "32.5B" is 0.8 % under QwQ-32B's total).
PARAMS_TOLERANCE = (0.005, 0.01)


def model_problems(model: Model) -> list[tuple[str, str]]:
    """(field, problem) for what the model's facts contradict in the sizing."""
    if model.architecture is None:
        return []
    computed = published_scope_params(model, params_by_component(model))
    rounded = model.params % 10**6 == 0
    tolerance = PARAMS_TOLERANCE[rounded]
    if abs(computed - model.params) <= model.params * tolerance:
        return []
    counted = (" (the vision tower left out, as params_without_vision says)" if model.params_without_vision else
               " (the prediction layers left out, as params_without_prediction says)" if model.params_without_prediction else "")
    return [("architecture", f"adds up to {computed:,} parameters{counted}, {abs(computed / model.params - 1):.1%} from params "
             f"({model.params:,}); it must be within {tolerance:.1%}{' of a rounded count' if rounded else ''}")]
