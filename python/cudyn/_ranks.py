"""Which GPU a process takes: the node-local MPI or Slurm rank, or
CUDYN_DEVICE.  No side effects (cudyn.autoinit applies the choice when it
is imported; cudyn.pycuda.tools.make_default_context when it is called)."""

import os

#: Environment variables that give the node-local rank, in the order they are read.
LOCAL_RANK_VARIABLES = ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK",
                        "PMI_LOCAL_RANK", "SLURM_LOCALID")


def local_rank(environ=None):
    """The node-local MPI rank from the environment, or None outside MPI/Slurm."""
    environ = os.environ if environ is None else environ
    for name in LOCAL_RANK_VARIABLES:
        value = environ.get(name, "").strip()
        if value.isdigit():
            return int(value)
    return None


def choose_ordinal(count, environ=None):
    """The device ordinal autoinit picks among ``count`` devices."""
    environ = os.environ if environ is None else environ
    explicit = environ.get("CUDYN_DEVICE", "").strip()
    if explicit:
        if not explicit.isdigit():
            raise ValueError(f"CUDYN_DEVICE={explicit!r} is not a device ordinal")
        return int(explicit)
    rank = local_rank(environ)
    return 0 if rank is None or count <= 0 else rank % count
