"""The one exception type for bad user input: its message is a readable sentence."""


class InputError(ValueError):
    """Raised for files or arguments a user supplied that mtlens cannot use.

    The message names the file or argument and the numbers involved, e.g.
    "system 'B.txt' has 999 lines, the reference 'ref.txt' has 1000".
    """
