"""``python -m mtlens``."""

from .cli import main

raise SystemExit(main())
