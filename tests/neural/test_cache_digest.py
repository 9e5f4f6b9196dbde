"""Issue 61: a neural score is cached under the checkpoint's digest and everything else its signature says changes
the number (the COMET, torch and transformers versions, the precision, the configuration's layer transformation);
scores computed in another environment are never read as this one's. No model is run: the versions are the
neural environment's answer, replaced here."""

from __future__ import annotations

import pytest

from mtlens.neural import environment
from mtlens.neural.models import Model, cache_digest, signature_fields


@pytest.fixture
def comet_model(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "model.ckpt").write_bytes(b"weights")
    (tmp_path / "hparams.yaml").write_text("nr_frozen_epochs: 0.3\nlayer_transformation: sparsemax\n")
    return Model("m", str(tmp_path), "d" * 64, "comet", ("mt", "src", "ref"), 7, 0.0)


def _with_versions(monkeypatch, comet="2.2.6", torch="2.5.1", transformers="4.46.0"):
    environment._versions.cache_clear()
    monkeypatch.setattr(environment, "_all_versions", lambda: (comet, "3.11.7", transformers, torch))


def test_another_version_or_layer_transformation_is_another_cache(comet_model, monkeypatch, tmp_path):
    _with_versions(monkeypatch)
    fields = dict(signature_fields(comet_model, "fast"))
    assert (fields["comet"], fields["torch"], fields["transformers"], fields["layer"]) == (
        "2.2.6", "2.5.1", "4.46.0", "sparsemax",
    )  # fmt: skip
    here = cache_digest(comet_model)
    assert here.startswith("d" * 64 + "@") and cache_digest(comet_model) == here  # the same environment: the same
    for changed in ({"comet": "2.2.5"}, {"torch": "2.4.0"}, {"transformers": "4.45.0"}):
        _with_versions(monkeypatch, **changed)
        assert cache_digest(comet_model) != here, changed
    _with_versions(monkeypatch)
    (tmp_path / "hparams.yaml").write_text("layer_transformation: softmax\n")
    assert dict(signature_fields(comet_model, "fast"))["layer"] == "softmax"
    assert cache_digest(comet_model) != here
