"""Neural metrics (COMET, CometKiwi, xCOMET, MetricX-24) from the user's own local checkpoints.

- :mod:`.models`: the model registry, cache keys, computing what is missing through the worker.
- :mod:`.worker`: the worker, run in the optional extra's own interpreter (standard library and COMET
  only; it never imports mtlens).
"""
