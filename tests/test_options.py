"""The options object: one place for every option, its bounds, and the per-metric cache key."""

from __future__ import annotations

import dataclasses

import pytest

from mtlens.errors import InputError
from mtlens.metrics import METRIC_NAMES, make_metric
from mtlens.options import DEFAULTS, SPECS, Options


def test_every_field_has_a_spec_and_every_spec_a_field():
    assert [f.name for f in dataclasses.fields(Options)] == list(SPECS)
    for spec in SPECS.values():
        assert set(spec.metrics) <= set(METRIC_NAMES)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"char_order": 0}, "--char-order must be between 1 and 100"),
        ({"char_order": 101}, "--char-order must be between 1 and 100"),
        ({"char_order": 2.5}, "--char-order must be a whole number"),
        ({"smooth_value": float("inf")}, "--smooth-value must be above 0"),
        ({"smooth_value": float("nan")}, "--smooth-value must be above 0"),
        ({"smooth_value": 0}, "--smooth-value must be above 0"),
        ({"tbleu_epsilon": -0.1}, "--tbleu-epsilon must be between 0 and 1"),
        ({"tokenize": "moses"}, "--tokenize must be one of"),
        ({"lowercase": "yes"}, "--lowercase must be true or false"),
    ],
)
def test_bounds_name_the_flag(change, needle):
    with pytest.raises(InputError, match=needle.replace("+", r"\+")):
        DEFAULTS.replace(**change)


def test_unknown_option_is_an_error_not_ignored():
    with pytest.raises(InputError, match="unknown option"):
        make_metric("bleu", tokenise="zh")


def test_key_changes_exactly_with_the_options_a_metric_uses():
    for name, spec in SPECS.items():
        default = getattr(DEFAULTS, name)
        if spec.kind == "bool":
            other = not default
        elif spec.kind == "choice":
            other = next(c for c in spec.choices if c != default)
        elif name == "smooth_value":
            other = 0.5
        else:
            other = default + (1 if spec.kind == "int" else 0.1)
        changed = DEFAULTS.replace(**{name: other})
        for metric in METRIC_NAMES:
            same = changed.key(metric) == DEFAULTS.key(metric)
            assert same == (metric not in spec.metrics), (name, metric)


def test_smooth_value_key_is_resolved():
    floor = DEFAULTS.replace(smooth_method="floor")
    assert floor.key("bleu") == floor.replace(smooth_value=0.1).key("bleu")


def test_options_reach_every_metric():
    o = DEFAULTS.replace(
        tokenize="zh",
        lowercase=True,
        smooth_method="floor",
        smooth_value=0.2,
        max_ngram_order=3,
        char_order=7,
        char_keep_spaces=True,
        chrf_eps_smoothing=True,
        ter_normalized=True,
        ter_single_pass=True,
        nist_case_sensitive=True,
        tbleu_epsilon=0.3,
    )
    assert "tok:zh" in make_metric("bleu", o).signature(1).format()
    assert "smooth:floor" in make_metric("bleu", o).signature(1).format()
    assert make_metric("bleu", o).max_ngram_order == 3
    assert make_metric("bleu-c", o).max_ngram_order == 7
    assert make_metric("chrf", o).eps_smoothing and make_metric("chrf++", o).eps_smoothing
    t = make_metric("ter", o)
    assert t.normalized and t.single_pass and "refpass:once" in t.signature(1).format()
    assert make_metric("nist", o).lowercase is False
    assert make_metric("tbleu", o).epsilon == 0.3
