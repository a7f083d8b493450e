# Type stubs for cudyn._ranks, whose names cudyn.autoinit re-exports.
from typing import Mapping

LOCAL_RANK_VARIABLES: tuple[str, ...]

def local_rank(environ: Mapping[str, str] | None = None) -> int | None:
    """The node-local MPI rank from the environment, or None outside MPI/Slurm."""
def choose_ordinal(count: int, environ: Mapping[str, str] | None = None) -> int:
    """The device ordinal autoinit picks among ``count`` devices."""
