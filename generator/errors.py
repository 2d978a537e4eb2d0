"""The one error type every front-end raises for bad input."""


class SpecError(Exception):
    """Bad input, located: file, entry (procedure) and parameter when known."""

    def __init__(self, message, file=None, entry=None, parameter=None):
        self.message = message
        self.file = file
        self.entry = entry
        self.parameter = parameter
        super().__init__(str(self))

    def __str__(self):
        where = [str(self.file)] if self.file else []
        if self.entry:
            where.append(f"entry '{self.entry}'")
        if self.parameter:
            where.append(f"parameter '{self.parameter}'")
        return (": ".join([", ".join(where), self.message]) if where else self.message)
