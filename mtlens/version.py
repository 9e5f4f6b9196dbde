"""mtlens's version, shown in every signature."""

__version__ = "0.1.0"
