#!/bin/bash
# The manylinux wheel on a glibc older than the one that built it: Debian 11
# (glibc 2.31, older than the 2.33 and 2.34 whose symbol versions
# python/manylinux_glibc.c avoids), made with debootstrap, with CPython 3.11
# built there from Debian 12's python3.11 source (apt-get source, checked
# against Debian's signed index), and the mock driver and mock NVRTC built
# there from the release tarball.  There the wheel is installed with that
# interpreter's pip (which must accept its manylinux tag) into a virtual
# environment, and used: python3 -m cudyn lists the mock's GPUs; memory both
# ways; a kernel compiled by the mock NVRTC through cudyn's cache and run by
# the mock.
#
#   .ci/wheel-old-glibc.sh WHEEL TARBALL [ROOT]
#
# ROOT (default /srv/cudyn-bullseye) is kept: a second run reuses the
# system and the interpreter (the first takes about ten minutes on two
# cores, most of it building CPython).  Needs root, debootstrap and
# deb.debian.org.  Not a job of .ci/run (too long for its budget).
set -euo pipefail
wheel=$(readlink -f "${1:?usage: .ci/wheel-old-glibc.sh WHEEL TARBALL [ROOT]}")
tarball=$(readlink -f "${2:?usage: .ci/wheel-old-glibc.sh WHEEL TARBALL [ROOT]}")
root=${3:-/srv/cudyn-bullseye}
suite=bullseye
mirror=http://deb.debian.org/debian
step() { printf '\n==== %s (%d s)\n' "$*" $SECONDS; }
[ "$(id -u)" = 0 ] || { echo "wheel-old-glibc.sh: run as root (debootstrap, chroot)" >&2; exit 1; }
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/build LC_ALL=C.UTF-8 /bin/bash -c "$1"; }

if [ ! -x "$root/usr/bin/gcc" ]; then
    step "debootstrap $suite into $root"
    command -v debootstrap > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap > /dev/null
    debootstrap --variant=minbase --include=build-essential,zlib1g-dev,libffi-dev,libssl-dev,ca-certificates \
        "$suite" "$root" "$mirror" > "$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 1; }
fi
mkdir -p "$root/build"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT

if [ ! -x "$root/opt/py311/bin/python3.11" ]; then
    step "CPython 3.11 from Debian 12's source, built in $root"
    apt=$(mktemp -d)
    mkdir -p "$apt/lists/partial" "$apt/dl"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" > "$apt/sources.list"
    options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
             -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
    apt-get "${options[@]}" update > "$apt/update.log" 2>&1 || { cat "$apt/update.log"; exit 1; }
    (cd "$apt/dl" && apt-get "${options[@]}" source --download-only python3.11 > "$apt/source.log" 2>&1) ||
        { cat "$apt/source.log"; exit 1; }
    rm -rf "$root/build/Python-3.11"*
    tar -xzf "$apt"/dl/python3.11_*.orig.tar.gz -C "$root/build"
    rm -rf "$apt"
    in_root 'cd /build/Python-3.11.* && ./configure --prefix=/opt/py311 > ../python-configure.log 2>&1 &&
        make -j"$(nproc)" > ../python-make.log 2>&1 && make install > ../python-install.log 2>&1' ||
        { tail -30 "$root"/build/python-*.log; exit 1; }
fi

step "the mock driver and mock NVRTC, built in $root from $(basename "$tarball")"
rm -rf "$root/build/cudyn" && mkdir -p "$root/build/cudyn"
tar -xzf "$tarball" -C "$root/build/cudyn" --strip-components=1
in_root 'cd /build/cudyn && ./configure --without-python --without-cuda --without-mpi > ../cudyn-configure.log 2>&1 &&
    make -j"$(nproc)" tests/mock/libcuda.la tests/mock/nvrtc/libnvrtc.la > ../cudyn-mock.log 2>&1' ||
    { tail -30 "$root"/build/cudyn-*.log; exit 1; }

step "$(basename "$wheel") with pip and CPython 3.11 on $(in_root 'ldd --version' | head -n 1)"
cp "$wheel" "$root/build/"
in_root "rm -rf /build/venv && /opt/py311/bin/python3.11 -m venv /build/venv &&
    /build/venv/bin/pip install --no-index /build/$(basename "$wheel")" | tail -n 1
cat > "$root/build/use.py" <<'PY'
import platform, struct, sys
import cudyn
print("Python", platform.python_version(), "glibc", platform.libc_ver()[1], "cudyn", cudyn.version(), "from", cudyn.__file__)
memory = cudyn.DeviceMemory(16)
cudyn.memcpy_htod(memory, b"0123456789abcdef")
back = bytearray(16)
cudyn.memcpy_dtoh(back, memory)
assert back == b"0123456789abcdef", back
n = 1024
x = cudyn.DeviceMemory(4 * n)
cudyn.memcpy_htod(x, struct.pack(f"{n}f", *range(n)))
module = cudyn.SourceModule("""
__global__ void scale(float a, float *x, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}""")
module.get_function("scale").prepare("fPQ", grid=(4,), block=(256,))(2.0, x, n)
out = bytearray(4 * n)
cudyn.memcpy_dtoh(out, x)
values = struct.unpack(f"{n}f", out)
assert values[:4] == (0.0, 2.0, 4.0, 6.0) and values[-1] == 2.0 * (n - 1), values[:4]
print("memory both ways; scale compiled by the mock NVRTC and run by the mock:", values[:4])
PY
mocks='CUDYN_LIBCUDA=/build/cudyn/tests/mock/.libs/libcuda.so.1 CUDYN_LIBNVRTC=/build/cudyn/tests/mock/nvrtc/.libs/libnvrtc.so.13'
in_root "cd /build && $mocks MOCK_CUDA_DEVICES='Mock GPU A:90,Mock GPU B:80' venv/bin/python -m cudyn" | tee "$root/build/main.txt"
grep -q '^  1  Mock GPU B  sm_80 ' "$root/build/main.txt" || { echo "FAIL: python3 -m cudyn did not list the mock's GPUs"; exit 1; }
in_root "cd /build && $mocks venv/bin/python use.py"
echo
echo "old glibc: $(basename "$wheel") installed and used on $(in_root 'ldd --version' | head -n 1 | sed 's/^ldd //')"
