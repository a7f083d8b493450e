# Type stubs for cudyn.autoinit (importing it chooses and uses a device).
from typing import Iterable, Mapping

from . import Device
from ._ranks import LOCAL_RANK_VARIABLES as LOCAL_RANK_VARIABLES
from ._ranks import choose_ordinal as choose_ordinal
from ._ranks import local_rank as local_rank

device: Device
context: Device

def cpu_list(cpus: Iterable[int]) -> str:
    """A set of CPU numbers as the kernel's cpulist text, ``"0-3,8"``."""
def bind_near_gpu(ordinal: int | None = None, enabled: bool = True) -> tuple[bool, str]:
    """Binds every thread of this process to the CPUs next to the device; (bound, what was done)."""
