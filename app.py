"""mtlens: the dashboard's entry point (``streamlit run app.py``).

Streamlit runs this file in two roles:

- as every session's home page (the script, ``__name__ == "__main__"``): load references and system
  outputs, or the bundled sample (:func:`mtlens.ui.home.page`);
- once per server, imported as a module, because it holds an ``st.App``: Streamlit then serves the
  dashboard and, beside it, the quick views of saved sets (plain HTML drawn on the server,
  :mod:`mtlens.ui.quick`; docs/decisions.md, "Reopening a set"), with the WebSocket origin check in
  front and the scoring processes stopped with the server (:mod:`mtlens.ui.server`).
"""

from __future__ import annotations

import streamlit as st

if __name__ == "__main__":
    from mtlens.ui.home import page

    page()
else:
    from mtlens.ui.server import app_parts

    app = st.App(__file__, **app_parts())
