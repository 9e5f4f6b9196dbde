"""Sidebar widgets shared by the pages."""

from __future__ import annotations

import streamlit as st

from ..core.errors import InputError
from ..core.options import SPECS, Options
from ..service.results import metrics_using
from . import links, render, state


def widget_key(name: str) -> str:
    """The sidebar widget's key of an option (``w_`` + the field name of :class:`Options`)."""
    return f"w_{name}"


def _seed_widget_state(opts: Options) -> None:
    """Keep the option widgets' values across pages.

    Streamlit forgets widget-keyed state when another page runs without the
    widget, and a widget re-created on a new page falls back to its own default.
    Re-assigning each key before the widget is drawn (Streamlit's documented
    workaround) keeps the value; keys never set yet take the session's options
    (a non-widget key, the memory of the options).
    """
    for name in SPECS:
        key = widget_key(name)
        st.session_state[key] = st.session_state[key] if key in st.session_state else getattr(opts, name)


def _widget(container, name: str, spec):
    key = widget_key(name)
    if spec.kind == "bool":
        return container.checkbox(spec.label, key=key, help=spec.help)
    if spec.kind == "choice":
        return container.selectbox(spec.label, spec.choices, key=key, help=spec.help)
    if spec.kind == "int":
        return container.slider(spec.label, int(spec.low), int(spec.high), key=key, help=spec.help)
    if spec.step is not None:
        return container.slider(spec.label, float(spec.low), float(spec.high), step=spec.step, key=key, help=spec.help)
    return container.number_input(
        spec.label,
        min_value=None if spec.low_open else float(spec.low),
        max_value=float(spec.high),
        key=key,
        help=spec.help + " (empty: the method's default)",
        placeholder="default",
    )


def metric_sidebar() -> Options:
    """Metric options in the sidebar, one widget per :data:`mtlens.core.options.SPECS` entry (TER's in an
    expander); returns the session's :class:`Options` (updated; a value out of bounds is
    reported in the sidebar and the previous options are kept)."""
    opts = state.options()
    if not st.session_state.get("mtlens_options_linked"):  # once per session: the options a link names
        st.session_state["mtlens_options_linked"] = True
        linked = links.options_from_link(opts)
        if linked != opts:
            opts = linked
            state.set_options(opts)
            for name in SPECS:
                st.session_state[widget_key(name)] = getattr(opts, name)
    _seed_widget_state(opts)
    for note in links.link_notes():  # a link never changes the numbers silently
        st.warning(render.md(note[0].upper() + note[1:] + "."))
    sb = st.sidebar
    sb.header("Metric options")
    values = {}
    ter = sb.expander("TER options")
    for name, spec in SPECS.items():
        values[name] = _widget(ter if metrics_using(name) == ("ter",) else sb, name, spec)
    try:
        new = Options.from_mapping(values)
    except InputError as err:
        sb.error(str(err))
        return opts
    if new != opts:
        state.set_options(new)
    links.options_to_link(new, state.default_options(st.session_state.get(state.DATA_KEY)))
    return new


def dataset_caption(ds: state.Dataset) -> None:
    """The page's header line: which set it shows (its name and project), where it came from, its language
    pair, systems, lines and references."""
    c = ds.corpus
    # an upload of this session (saved on arrival) is "your upload"; a set opened by link or list is a saved set
    origin = "bundled sample" if ds.origin == "sample" else "your upload" if ds.files else "saved set"
    lang = f" · language {c.language_pair}" if c.language_pair else ""
    if ds.language is not None and ds.language.how == "detected" and ds.language.target:
        lang += " (detected)"
    name = f"Set: {render.md(ds.name)} · " if ds.name else ""
    if ds.project:
        name += f"Project: {render.md(ds.project)} · "
    docs = ""
    if c.documents is not None:
        docs = f" · {c.document_count:,} documents"
        if c.domains is not None:
            domains = sorted({d for d in c.domains if d})
            docs += f" · {len(domains)} domain(s): {render.md(', '.join(domains[:8]))}" + (
                " …" if len(domains) > 8 else ""
            )
    st.caption(
        f"{name}Data: {origin}{render.md(lang)} · {len(c.systems)} systems · {c.n_lines:,} lines · "
        f"{len(c.references)} reference(s){docs}"
    )


def require_reference(ds, what: str) -> None:
    """Stop a page that compares against references, with one sentence, for a set that has none."""
    if not ds.corpus.references:
        st.info(
            f"{what} compares the systems with a reference translation, and this set has none (it was made from "
            "human annotations). The Rankings, Sentences, Significance and Human correlation pages work without one."
        )
        st.stop()


def open_screen(title: str | None, about: str | None = None) -> tuple[state.Dataset, Options]:
    """The opening every screen shares: its title (and a line about it), the current set, the metric sidebar
    and the set's header line. Returns the set and the options the sidebar chose."""
    if title:
        st.title(title)
    if about:
        st.caption(about)
    ds = state.current()
    opts = metric_sidebar()
    dataset_caption(ds)
    return ds, opts


class Steps:
    """A page's progress through its parts, drawn where the page makes it (issue 51: Compare two systems' first
    load, 13 s on a large set, showed nothing moving): "step k of n: what", gone when the last part is drawn."""

    def __init__(self, names: list[str]):
        self.names, self.k = list(names), 0
        self._box = st.empty()

    def next(self) -> None:
        """Say the next part is being computed; after the last one, clear the bar."""
        if self.k >= len(self.names):
            self._box.empty()
            return
        name = self.names[self.k]
        self.k += 1
        self._box.progress((self.k - 1) / len(self.names), text=f"Step {self.k} of {len(self.names)}: {name}…")

    def done(self) -> None:
        self._box.empty()
