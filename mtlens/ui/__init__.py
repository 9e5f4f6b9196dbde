"""The only part of mtlens that imports streamlit: session state, cached scoring, widgets, escaped HTML."""
