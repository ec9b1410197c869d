"""User-facing error type shared by every command and API edge.

Raise `UserError("what was wrong, and where")` for bad input: the CLI prints it as one
line on stderr and exits 2; the API turns it into a 4xx JSON body.
"""


class UserError(Exception):
    """Bad input from a user: one clear line naming what was wrong."""
