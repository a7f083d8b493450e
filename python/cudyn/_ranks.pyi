# Type stubs for cudyn._ranks, whose names cudyn.autoinit re-exports.
LOCAL_RANK_VARIABLES: tuple[str, ...]

def local_rank() -> int | None:
    """The node-local rank the launcher gives, as the C library reads it, or None outside a launcher."""
def decimal(text: str, what: str) -> int:
    """A device ordinal written in ASCII decimal digits, else ValueError naming ``what``."""
def choose_ordinal() -> int:
    """The device ordinal autoinit picks: CUDYN_DEVICE, else the node-local rank's device, else 0."""
