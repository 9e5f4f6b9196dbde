"""Execution: scoring work cut into tasks for the worker pool, the compiled kernels prepared, background
jobs.

- :mod:`.engine`: tasks, blocks and the worker pool (standard library).
- :mod:`.kernels`: the compiled kernels, built once ahead of their first use.
- :mod:`.processes`: how many processes may work; starting a helper interpreter.
- :mod:`.scoring`: a corpus scored with several metrics, statistics once.
- :mod:`.jobs`: background jobs (a neural model over a saved set).
"""
