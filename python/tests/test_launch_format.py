"""The module and the library agree on the launch format: every character
libcudyn's parser accepts, the module can pass.  Both read the alphabet
from cudyn.h's CUDYN_LAUNCH_FORMAT_MAP; this fails when the library gains
a character of a kind or size the module's packing (python/src/pack.c,
format.c) does not handle, and says which."""

import string

import pytest

pytestmark = pytest.mark.mock

SAXPY = """
__global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"""


def library_alphabet(f):
    """The characters libcudyn's format parser accepts, asked through prepare()
    (cudyn_args_create), which refuses a character the library does not know
    with its own message."""
    import cudyn
    known = set()
    for c in string.printable.strip():
        if c in "PlLnN":  # PyCUDA's letters, which prepare() translates
            continue
        try:
            f.prepare(c)
        except cudyn.InvalidArgument as e:
            if "is not a format character" in str(e):
                continue
        known.add(c)
    return known


def test_every_character_of_the_library_is_passed_by_the_module():
    import cudyn
    from cudyn import _cudyn
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    module = _cudyn._launch_format_codes()
    library = library_alphabet(f)
    assert library, "the library accepts no format character at all"
    lagging = sorted(library - set(module))
    assert not lagging, (f"libcudyn accepts the format characters {lagging}, which this cudyn module cannot pass: "
                         "teach python/src/pack.c their kind and size (python/src/format.c says which it handles)")
    assert sorted(set(module) - library) == []

