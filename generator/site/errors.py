"""The one error a site build reports to the user."""


class BuildError(Exception):
    """A build that could not finish; the message is one line for the user."""
