"""The options object: one place for every option, its bounds, and the per-metric cache key."""

from __future__ import annotations

import dataclasses

import pytest

from mtlens import Corpus
from mtlens.core.errors import InputError
from mtlens.core.options import DEFAULTS, SPECS, Options
from mtlens.metrics import REGISTRY, make_metric, metric_names, metrics_using, options_key
from mtlens.runtime.scoring import score


def test_every_field_has_a_spec_and_every_spec_a_field():
    assert [f.name for f in dataclasses.fields(Options)] == list(SPECS)
    for cls in REGISTRY.values():
        assert set(cls.option_fields) <= set(SPECS), cls.name
    for name in SPECS:
        assert metrics_using(name), f"no metric reads {name}"


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
        for metric in metric_names():
            same = options_key(metric, changed) == options_key(metric, DEFAULTS)
            assert same == (name not in REGISTRY[metric].option_fields), (name, metric)
            if same:  # the cache key may leave an option out only if the metric really ignores it
                a, b = score(_ODD, [metric], DEFAULTS)[metric], score(_ODD, [metric], changed)[metric]
                assert a.signature == b.signature and a.scores == b.scores, (name, metric)


_ODD = Corpus.build(
    {"ref": ["The Cat, sat on the mat!", "北京 欢迎 你", "Il était une fois."]},
    {"A": ["the cat sat on a mat", "北京欢迎你", "il etait une fois"], "B": ["A cat.", "北 京", "Once upon"]},
)


def test_smooth_value_key_is_resolved():
    floor = DEFAULTS.replace(smooth_method="floor")
    assert options_key("bleu", floor) == options_key("bleu", floor.replace(smooth_value=0.1))


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
