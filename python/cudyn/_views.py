"""Array layouts on the host: the shapes, strides and byte offsets of views.

Nothing here touches the device: indexing, transposes, squeezing and the
questions a copy asks of a layout (is it contiguous in C or Fortran order,
which bytes does it span, does it span exactly its own elements) are
answered from (shape, strides, itemsize), with strides in bytes as numpy
gives them.  gpuarray builds its views from these answers.
"""

import numpy as np


def c_strides(shape, itemsize):
    """The strides of a C-contiguous (row-major) array."""
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent if extent else 1
    return tuple(reversed(strides))


def f_strides(shape, itemsize):
    """The strides of a Fortran-contiguous (column-major) array."""
    strides, step = [], itemsize
    for extent in shape:
        strides.append(step)
        step *= extent if extent else 1
    return tuple(strides)


def _contiguous(shape, strides, itemsize, axes):
    if 0 in shape:
        return True
    step = itemsize
    for axis in axes:
        if shape[axis] != 1 and strides[axis] != step:
            return False
        step *= shape[axis]
    return True


def is_c_contiguous(shape, strides, itemsize):
    """numpy's C_CONTIGUOUS flag: axes of length 1 do not count."""
    return _contiguous(shape, strides, itemsize, range(len(shape) - 1, -1, -1))


def is_f_contiguous(shape, strides, itemsize):
    """numpy's F_CONTIGUOUS flag: axes of length 1 do not count."""
    return _contiguous(shape, strides, itemsize, range(len(shape)))


def extent(shape, strides, itemsize):
    """(low, high): the byte offsets, from element 0, of the first byte and
    one past the last byte the array touches; (0, 0) when it is empty."""
    if 0 in shape:
        return 0, 0
    low, high = 0, itemsize
    for n, s in zip(shape, strides):
        span = (n - 1) * s
        if span < 0:
            low += span
        else:
            high += span
    return low, high


def is_dense(shape, strides, itemsize):
    """True when the elements fill their byte span exactly, each byte once:
    a C- or F-contiguous array, or one whose axes are a permutation (with
    any signs) of a contiguous layout.  Such an array is copied as one
    block of bytes."""
    if 0 in shape:
        return True
    axes = sorted((abs(s), n) for n, s in zip(shape, strides) if n != 1)
    step = itemsize
    for stride, n in axes:
        if stride != step:
            return False
        step *= n
    return True


def compact_strides(shape, strides, itemsize):
    """Contiguous strides that keep the order of the axes in memory (numpy's
    order="K"): the layout a copy of a view gets."""
    order = sorted(range(len(shape)), key=lambda axis: (abs(strides[axis]), -axis))
    compact = [0] * len(shape)
    step = itemsize
    for axis in order:
        compact[axis] = step
        step *= shape[axis] if shape[axis] else 1
    return tuple(compact)


def normalize_shape(shape):
    """A shape as a tuple of ints, from an int, a numpy integer, a 0-d or
    1-d numpy array or a sequence of ints."""
    if isinstance(shape, np.ndarray):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(n) for n in shape)
    except TypeError:
        raise TypeError(f"a shape is an int or a sequence of ints, not {type(shape).__name__}") from None


def _slice(n, stride, key):
    start, stop, step = key.indices(n)
    return start * stride, len(range(start, stop, step)), step * stride


def index(shape, strides, key):
    """(byte offset, shape, strides) of ``array[key]`` for basic indexing:
    ints, slices (with steps, negative ones too), Ellipsis and
    numpy.newaxis.  Arrays of indices and boolean masks are refused."""
    if type(key) is slice and shape:  # a[i:j:k], the commonest key: on the hot path of every sliced operation
        start, count, step = _slice(shape[0], strides[0], key)
        return start, (count,) + tuple(shape[1:]), (step,) + tuple(strides[1:])
    if not isinstance(key, tuple):
        key = (key,)
    ellipses = axes_added = 0
    for k in key:
        if k is Ellipsis:
            ellipses += 1
        elif k is None:
            axes_added += 1
    given = len(key) - ellipses - axes_added
    if given > len(shape):
        raise IndexError(f"too many indices: {given} for an array of {len(shape)} dimensions")
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    offset, new_shape, new_strides, axis = 0, [], [], 0
    for k in key:
        if k is Ellipsis:
            for _ in range(len(shape) - given):
                new_shape.append(shape[axis])
                new_strides.append(strides[axis])
                axis += 1
        elif k is None:
            new_shape.append(1)
            new_strides.append(0)
        elif isinstance(k, slice):
            start, count, step = _slice(shape[axis], strides[axis], k)
            offset += start
            new_shape.append(count)
            new_strides.append(step)
            axis += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            i = int(k)
            if not -shape[axis] <= i < shape[axis]:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {shape[axis]}")
            offset += (i % shape[axis]) * strides[axis]
            axis += 1
        else:
            raise IndexError(f"cudyn arrays take ints, slices, Ellipsis and numpy.newaxis as indices, not "
                             f"{type(k).__name__} (gather with gpuarray.take; masks with gpuarray.where)")
    new_shape.extend(shape[axis:])
    new_strides.extend(strides[axis:])
    return offset, tuple(new_shape), tuple(new_strides)


def transpose(shape, strides, axes=None):
    """(shape, strides) with the axes permuted (reversed when axes is None)."""
    if axes is None:
        axes = tuple(range(len(shape) - 1, -1, -1))
    axes = tuple(int(a) % len(shape) if len(shape) else int(a) for a in axes)
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(f"axes {axes} are not a permutation of the {len(shape)} axes")
    return tuple(shape[a] for a in axes), tuple(strides[a] for a in axes)


def squeeze(shape, strides, axis=None):
    """(shape, strides) without the axes of length 1 (or only those given)."""
    if axis is None:
        keep = [i for i, n in enumerate(shape) if n != 1]
    else:
        drop = {a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis)}
        if any(shape[a] != 1 for a in drop):
            raise ValueError("cannot squeeze an axis whose length is not 1")
        keep = [i for i in range(len(shape)) if i not in drop]
    return tuple(shape[i] for i in keep), tuple(strides[i] for i in keep)


def resolve_shape(shape, size):
    """A reshape's target with its -1 worked out; ValueError if the sizes differ."""
    shape = normalize_shape(shape)
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = 1
    for n in shape:
        if n != -1:
            known *= n
    if -1 in shape:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of {size} elements into shape {shape}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    elif known != size:
        raise ValueError(f"cannot reshape an array of {size} elements into shape {shape}")
    return shape


def view_as(shape, strides, itemsize, new_itemsize):
    """(shape, strides) of the same bytes seen as items of another size:
    the axis of the smallest stride (which must step by one item) scales,
    as PyCUDA's view does (numpy's last axis, for a C-contiguous array)."""
    if new_itemsize == itemsize:
        return shape, strides
    if not shape:
        raise ValueError("a 0-d array cannot be viewed with another item size")
    axis = min(range(len(shape)), key=lambda a: abs(strides[a]))
    if strides[axis] != itemsize and shape[axis] != 1:
        raise ValueError("the array is not contiguous along its innermost axis, so its items cannot be split or"
                         " joined; make a contiguous copy first")
    if shape[axis] * itemsize % new_itemsize:
        raise ValueError(f"the innermost axis ({shape[axis]} items of {itemsize} bytes) does not divide into items"
                         f" of {new_itemsize} bytes")
    new_shape = list(shape)
    new_strides = list(strides)
    new_shape[axis] = shape[axis] * itemsize // new_itemsize
    new_strides[axis] = new_itemsize
    return tuple(new_shape), tuple(new_strides)


def broadcast(shape, strides, to):
    """Strides that view (shape, strides) as the broadcast shape `to` (0 on
    the axes it repeats); ValueError when the shapes do not broadcast."""
    if len(shape) > len(to):
        raise ValueError(f"shape {shape} does not broadcast to {to}")
    pad = len(to) - len(shape)
    out = []
    for axis, n in enumerate(to):
        if axis < pad:
            out.append(0)
            continue
        mine = shape[axis - pad]
        if mine == n:
            out.append(strides[axis - pad])
        elif mine == 1:
            out.append(0)
        else:
            raise ValueError(f"shape {shape} does not broadcast to {to}")
    return tuple(out)


class Flags:
    """numpy's flags that describe a layout: c_contiguous, f_contiguous and
    forc (either), also readable as flags["C_CONTIGUOUS"]."""

    __slots__ = ("c_contiguous", "f_contiguous")

    def __init__(self, shape, strides, itemsize):
        self.c_contiguous = is_c_contiguous(shape, strides, itemsize)
        self.f_contiguous = is_f_contiguous(shape, strides, itemsize)

    @property
    def forc(self):
        return self.c_contiguous or self.f_contiguous

    def __getitem__(self, name):
        names = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
                 "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous", "FORC": "forc"}
        try:
            return getattr(self, names[name.upper()])
        except KeyError:
            raise KeyError(name) from None

    def __repr__(self):
        return f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}"
