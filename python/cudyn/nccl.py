"""Collectives between GPUs through NVIDIA's NCCL, loaded by cudyn at run time.

cudyn finds ``libnccl.so.2`` the way it finds the driver (CUDYN_LIBNCCL, a
copy already loaded by PyTorch or CuPy, the pip wheel ``nvidia-nccl-cu13``
beside the interpreter, the system's ``libnccl2``) on the first call that
needs it; importing this module loads nothing.  With none found, the calls
raise ``cudyn.Error`` (status ``CUDYN_ERROR_NCCL_NOT_FOUND``) whose message
names every place tried and what to install.

One process per GPU, the unique id handed round by mpi4py::

    import cudyn, cudyn.nccl
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    uid = comm.bcast(cudyn.nccl.get_unique_id() if comm.rank == 0 else None)
    with cudyn.nccl.Communicator(comm.size, uid, comm.rank, device=local_rank) as nc:
        nc.all_reduce(x)             # in place, op="sum", on the default stream
        nc.wait()                    # raises NCCL's asynchronous error, if one comes

Several GPUs of one process: ``Communicator.for_devices([0, 1])`` gives a
communicator per device, whose calls go inside ``with cudyn.nccl.group():``
(or one thread each).

Buffers are ``cudyn.DeviceArray`` / ``GPUArray`` or anything with
``__cuda_array_interface__`` or DLPack (CuPy, PyTorch, JAX), contiguous, on
the communicator's device, of a dtype NCCL carries (8-, 32- and 64-bit
integers, float16/32/64, complex64/128; another is a TypeError); what each
must hold (a count past its allocation, memory of another device) the
library checks.  The calls queue work on ``stream`` (a ``cudyn.Stream``
the driver knows; None: the default stream) and return at once: keep the
arrays alive until it has finished.  While a call runs, and inside a
``group()`` until the group ends, its communicator and the memory of its
arrays are in use: ``destroy()``, ``abort()`` and ``DeviceMemory.free()``
raise ``cudyn.InvalidArgument`` meanwhile (python/README.md, "Lifetime:
one rule").  ``wait()`` answers Ctrl-C, with or without a timeout.
Operations are names (``"sum"``, ``"prod"``, ``"max"``, ``"min"``,
``"avg"``, in any case) or the constants below.  NCCL's failures are
cudyn's exceptions with NCCL's own message; the docs (docs/python.md, "NCCL")
say more.
"""

import contextlib as _contextlib

from . import _cudyn

__all__ = ["Communicator", "get_unique_id", "group", "group_start", "group_end", "version", "info", "has",
           "mpi_cuda_support", "SUM", "PROD", "MAX", "MIN", "AVG", "UNIQUE_ID_BYTES", "DTYPES"]

Communicator = _cudyn._NcclCommunicator

# the operations: cudyn.h's values (CUDYN_NCCL_OP_MAP)
SUM = _cudyn._nccl_ops["SUM"]
PROD = _cudyn._nccl_ops["PROD"]
MAX = _cudyn._nccl_ops["MAX"]
MIN = _cudyn._nccl_ops["MIN"]
AVG = _cudyn._nccl_ops["AVG"]
# the bytes of a unique id, and the element types NCCL carries as
# launch-format characters (CUDYN_NCCL_DTYPES)
UNIQUE_ID_BYTES = _cudyn._NCCL_ID_BYTES
DTYPES = _cudyn._nccl_dtypes


def get_unique_id():
    """A new unique id (``bytes`` of UNIQUE_ID_BYTES): made on one rank and
    handed to the others (``mpi4py``'s ``comm.bcast``, pickle, a file)."""
    return _cudyn._nccl_unique_id()


def info():
    """What cudyn found of NCCL, as a dict (cudyn_nccl_info): status,
    status_name, path, found_by, version, version_string, load_ms, trace.
    Loads NCCL if not done yet; never raises for a missing NCCL (status
    says)."""
    return _cudyn._nccl_info()


def version():
    """The version of the NCCL loaded, as a tuple: ``(2, 28, 9)``; raises
    cudyn.Error when none could be loaded."""
    return tuple(int(part) for part in _cudyn._nccl_info(check=True)["version_string"].split("."))


def has(name):
    """Whether the NCCL loaded has the function ``name`` ("ncclCommSplit",
    or "CommSplit"); False when no NCCL could be loaded."""
    return _cudyn._nccl_has(name if name.startswith("nccl") else "nccl" + name)


def mpi_cuda_support():
    """Whether MPI itself (mpi4py's ``comm.Allreduce(x, y)`` on device
    arrays) may be given device memory: cudyn_mpi_cuda_support as a dict,
    ``answer`` ("yes", "no" or "unknown"), ``source`` (what answered) and
    ``reason`` (a sentence, "because ...").  Ask after MPI_Init (after
    ``from mpi4py import MPI``); loads neither the driver nor NCCL.  Where
    the answer is not "yes", device buffers go through NCCL (this module)
    or are staged through host memory."""
    return _cudyn._mpi_cuda_support()


def group_start():
    """Starts a group (cudyn_nccl_group_start): the calls up to its
    ``group_end()`` start together.  ``group()`` is the safer form."""
    _cudyn._nccl_group_start()


def group_end():
    """Ends a group; raises the first failure of its calls, in which case
    none of them was handed to NCCL.  The outermost end lets go of what the
    group's calls held (their communicators and arrays' memory)."""
    _cudyn._nccl_group_end()


@_contextlib.contextmanager
def group():
    """``with cudyn.nccl.group():`` around send/recv pairs, or the calls of
    several communicators driven by one thread.  The group is ended even
    when the block raises (its error wins over the end's).  Inside it, the
    communicators and arrays its calls use cannot be destroyed, aborted or
    freed (cudyn.InvalidArgument) until it ends."""
    _cudyn._nccl_group_start()
    try:
        yield
    except BaseException:
        with _contextlib.suppress(_cudyn.Error):
            _cudyn._nccl_group_end()
        raise
    _cudyn._nccl_group_end()
