"""Which GPU a process takes: CUDYN_DEVICE, else the launcher's node-local
rank as the C library reads it (cudyn_local_rank_info, the one reading
every autoinit uses), else device 0.  No side effects: cudyn.autoinit
applies the choice when it is imported, cudyn.pycuda.tools's
make_default_context when it is called."""

import os

from . import _cudyn

#: The launcher variables the C library reads for the node-local rank, in
#: its order (cudyn.h, cudyn_local_rank_info; test_ranks.py checks that
#: the library reads each).
LOCAL_RANK_VARIABLES = ("OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "PMI_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
                        "PALS_LOCAL_RANKID")


def local_rank():
    """The node-local rank the launcher gives, as the C library reads it,
    or None outside a launcher; a value that is not a rank (``abc``, a
    non-ASCII digit) raises :class:`cudyn.InvalidArgument` naming the
    variable."""
    info = _cudyn._local_rank_info()
    return None if info is None else info["local_rank"]


def decimal(text, what):
    """A device ordinal written in ASCII decimal digits, else ValueError naming ``what``."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"{what}={text!r} is not a device ordinal (a decimal number)")
    return int(text)


def choose_ordinal():
    """The device ordinal autoinit picks: CUDYN_DEVICE (an ordinal, or
    ``local``), else the node-local rank modulo the devices this process
    sees (the C library's choice), else 0."""
    explicit = os.environ.get("CUDYN_DEVICE", "").strip()
    if explicit and explicit != "local":
        return decimal(explicit, "CUDYN_DEVICE")
    info = _cudyn._local_rank_info()
    return 0 if info is None else info["device"]
