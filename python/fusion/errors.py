"""The exceptions of the Fusion Python package. All derive from FusionError."""


class FusionError(RuntimeError):
    """Base of every Fusion error. The runtime binding raises it as
    FusionError(code, code_name, message); the frontend's subclasses take a
    message only."""

    def __init__(self, *args):
        if len(args) == 3 and isinstance(args[0], int) and isinstance(args[1], str):
            code, name, message = args
            super().__init__(f"{name}: {message}")
            self.code = code
            self.name = name
        else:
            super().__init__(*args)
            self.code = None
            self.name = type(self).__name__


class FusionDefinitionError(FusionError):
    """A definition is malformed: bad shapes, dtypes, dims, arguments, or a
    definition used after an earlier error."""


class FusionInputError(FusionError):
    """Inputs given to execute() do not match the definition (count, kind,
    device, dtype, rank, static sizes)."""


class FusionCompileError(FusionError):
    """fusion-translate failed, or a tool could not be found."""


class FusionExecutionError(FusionError):
    """The reference interpreter or the runtime failed while running."""
