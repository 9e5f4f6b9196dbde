"""The one model of every source of scores (issue 59): where a metric's scores come from and what family they belong
to (:mod:`.sources`, the one resolver of a metric's name), what any source yields (:mod:`.results`: one result type,
:mod:`.spans`: one span type with one rule for quoted text), and a job's progress (:mod:`.progress`). It imports only
:mod:`mtlens.core`: the types know no service, no store and no runtime.
"""
