"""``import cudyn.autoinit``: choose this process's GPU, as ``pycuda.autoinit``.

Under MPI or Slurm, one rank per GPU: the node-local rank, as the C
library reads it (``cudyn_local_rank_info``: ``OMPI_COMM_WORLD_LOCAL_RANK``,
``SLURM_LOCALID``, ``PMI_LOCAL_RANK``, ``MV2_COMM_WORLD_LOCAL_RANK``,
``PALS_LOCAL_RANKID``, the first set), modulo the device count chooses the
device; otherwise device 0 (``CUDYN_DEVICE=N`` overrides both).  A rank
variable that holds no rank raises, naming it.  The choice
is the main thread's device; ``cudyn.autoinit.device`` is it, and
``context`` names the same object for PyCUDA's code.  Raises
:class:`cudyn.Error` (with cudyn's message) when there is no usable GPU.
``bind_near_gpu()`` then binds the process's threads to the CPUs next to
it, as the C MPI examples do (examples/bind_near_gpu.h).
"""

import os

import cudyn

from ._ranks import LOCAL_RANK_VARIABLES, choose_ordinal, local_rank  # noqa: F401 (autoinit's names)

#: The :class:`cudyn.Device` this process uses.
device = cudyn.Device(choose_ordinal()).use()
#: PyCUDA's name: cudyn uses the device's primary context, so the device stands for it.
context = device


def cpu_list(cpus):
    """A set of CPU numbers as the kernel's cpulist text, ``"0-3,8"``."""
    parts, cpus = [], sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(parts)


def bind_near_gpu(ordinal=None, enabled=True):
    """Binds every thread of this process to the CPUs next to the device
    (``device`` by default): NVML's (:func:`cudyn.cpu_affinity`) that the
    process may already use, so a launcher's binding (``mpirun --bind-to``,
    Slurm) is narrowed, never widened.  Returns ``(bound, line)``: the line
    says which CPUs the process runs on, or why it did not bind, e.g.
    ``"device 1, CPUs 16-31 (NVML affinity)"``.  Linux only."""
    ordinal = device.ordinal if ordinal is None else ordinal
    allowed = os.sched_getaffinity(0)
    keep = f"device {ordinal}, CPUs {cpu_list(allowed)} (not bound: "
    if not enabled:
        return False, keep + "--no-bind)"
    try:
        near = cudyn.cpu_affinity(ordinal)
    except cudyn.Error as e:
        return False, keep + f"{e})"
    if near is None:
        return False, keep + "NVML cannot tell which CPUs are next to this GPU)"
    both = near & allowed
    if not both:
        return False, keep + f"NVML's CPUs {cpu_list(near)} are none of those this process may use)"
    failed = 0
    for tid in os.listdir("/proc/self/task"):  # the driver's threads too
        try:
            os.sched_setaffinity(int(tid), both)
        except OSError:
            failed += 1
    if os.sched_getaffinity(0) != both:
        return False, keep + "sched_setaffinity failed)"
    narrowed = "" if both == near else f", within the CPUs already allowed; NVML's: {cpu_list(near)}"
    threads = f"; {failed} thread{'' if failed == 1 else 's'} not bound" if failed else ""
    return True, f"device {ordinal}, CPUs {cpu_list(both)} (NVML affinity{narrowed}{threads})"
