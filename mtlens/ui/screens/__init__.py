"""One module per dashboard page: the page's body as a function, ``page()``; ``pages/N_Name.py`` sets the
page up inside the guard and calls it."""
