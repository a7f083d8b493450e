"""What needs numpy says so: arrays do, while ``import cudyn``, device and
pinned memory, modules and kernels with numpy-free arguments work
without it (a wheel installs no numpy)."""


def numpy(what):
    """numpy, or a ModuleNotFoundError naming ``what`` needs it."""
    try:
        import numpy as np  # here, not above: importing this module must not need numpy
    except ImportError as e:
        raise ModuleNotFoundError(f"{what} needs numpy, which this Python cannot import ({e}); install it "
                                  "(pip install numpy, or python3-numpy): import cudyn, DeviceMemory, PinnedMemory "
                                  "and SourceModule work without it", name="numpy") from e
    return np
