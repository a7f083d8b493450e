"""``import cudyn.autoinit``: choose this process's GPU, as ``pycuda.autoinit``.

Under MPI or Slurm, one rank per GPU: the node-local rank
(``OMPI_COMM_WORLD_LOCAL_RANK``, ``MPI_LOCALRANKID``, ``MV2_COMM_WORLD_LOCAL_RANK``,
``PMI_LOCAL_RANK``, ``SLURM_LOCALID``) modulo the device count chooses the
device; otherwise device 0 (``CUDYN_DEVICE=N`` overrides both).  The choice
is the main thread's device; ``cudyn.autoinit.device`` is it, and
``context`` names the same object for PyCUDA's code.  Raises
:class:`cudyn.Error` (with cudyn's message) when there is no usable GPU.
"""

import os

import cudyn

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


#: The :class:`cudyn.Device` this process uses.
device = cudyn.Device(choose_ordinal(cudyn.device_count())).use()
#: PyCUDA's name: cudyn uses the device's primary context, so the device stands for it.
context = device
