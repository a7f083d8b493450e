#!/bin/bash
# What `make install` gives a user who builds the examples: they are
# installed in $(docdir)/examples with a Makefile that builds them (C and
# C++) through pkg-config, and the programs it builds run against the
# installed library (here staged with DESTDIR, on the mock driver).  A
# CMake project finds the installed tree with find_package(cudyn 0.2),
# links cudyn::cudyn from C and C++ (cudyn.hpp) and runs; the package's
# version file refuses what this version does not satisfy.
. "$top_srcdir/tests/common.sh"
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }
stage="$tmp/stage"
install_staged "$stage"
[ -f "$stage$docdir/NEWS" ] || { echo "FAIL: NEWS is not installed in \$(docdir) ($docdir)"; fail=1; }

# the Python package's metadata, beside the package: importlib.metadata
# (and so pip) find the install and its version
if [ "${PYTHON_MODULE:-no}" = yes ]; then
    version=$(sed -n 's/^#define CUDYN_VERSION_STRING "\(.*\)"/\1/p' "$top_builddir/include/cudyn/version.h")
    info=$(find "$stage" -type d -name "cudyn-$version.dist-info")
    if [ -z "$info" ] || [ ! -f "$info/METADATA" ]; then
        echo "FAIL: make install left no cudyn-$version.dist-info/METADATA beside the Python package"
        fail=1
    else
        expect_exit 0 env PYTHONPATH="$(dirname "$info")" "$PYTHON" -c \
            'import importlib.metadata as m; print(m.version("cudyn"), m.metadata("cudyn")["Summary"] != "")'
        expect_line "$out" "$version True"
        [ -d "$(dirname "$info")/cudyn" ] || { echo "FAIL: $info is not beside the package cudyn/"; fail=1; }
    fi
fi

# `make uninstall` leaves nothing: no file, and no directory of cudyn's own
# (the generic ones, bin/ or share/man/man3/, may stay, as Automake leaves them)
check_uninstall() {
    if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$MAKE" -C "$top_builddir" uninstall DESTDIR="$stage" \
            > "$tmp/uninstall.log" 2>&1; then
        echo "FAIL: make uninstall DESTDIR=$stage:"
        sed 's/^/    | /' "$tmp/uninstall.log"
        fail=1
        return
    fi
    # (directories above the prefix may be named cudyn too, as make
    # distcheck's are: only those below it count)
    left=$(find "$stage" ! -type d; find "$stage" -type d -name '*cudyn*' | while read -r d; do
        case "$stage$libdir/" in "$d/"*) ;; *) echo "$d" ;; esac; done)
    [ -z "$left" ] || { echo "FAIL: make uninstall left these behind:"; printf '%s\n' "$left" | sed 's/^/    | /'; fail=1; }
}

# a copy, as a user would make of a read-only system directory
cp -R "$stage$docdir/examples" "$tmp/examples" && chmod -R u+w "$tmp/examples"
export PKG_CONFIG_PATH="$stage$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage"
# a library built with sanitizers needs their runtimes in the program that
# links it (clang keeps them in the executable), as a user's would
san_ldflags=
[ "${CUDYN_SANITIZER:-no}" = no ] || san_ldflags="-fsanitize=$CUDYN_SANITIZER"
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$MAKE" -C "$tmp/examples" CC="$CC" CXX="$CXX" LDFLAGS="$san_ldflags" \
        > "$tmp/make.log" 2>&1; then
    echo "FAIL: make in the installed examples directory:"
    sed 's/^/    | /' "$tmp/make.log"
    exit 1
fi
expect_match "$(pkg-config --cflags --libs cudyn)" "^-I$stage.* -L$stage.* -lcudyn"
for ex in saxpy struct_args template_kernel in_out cxx/saxpy cxx/struct_args cxx/stream_pipeline; do
    [ -x "$tmp/examples/$ex" ] || { echo "FAIL: the examples' Makefile did not build $ex"; fail=1; }
done

# the installed headers: version.h, cudyn.hpp, and no other cudyn/ file
# than those two and driver.h
for h in cudyn.h cudyn.hpp cudyn/version.h cudyn/driver.h; do
    [ -f "$stage$prefix/include/$h" ] || { echo "FAIL: include/$h is not installed"; fail=1; }
done

# a CMake project against the staged tree (found as an installed prefix)
cmake_ok=no
if command -v cmake >/dev/null; then
    consumer="$tmp/cmake-consumer"
    mkdir -p "$consumer"
    cat > "$consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
if(FIND_ONLY)
  # C enabled: CMake searches a multiarch libdir (lib/x86_64-linux-gnu, as
  # Debian installs it) only when it knows the library architecture
  project(cudyn_find C)
  find_package(cudyn ${WANT} REQUIRED)
  return()
endif()
project(cudyn_consumer C CXX)
find_package(cudyn ${WANT} REQUIRED)
add_executable(c_consumer main.c)
target_link_libraries(c_consumer PRIVATE cudyn::cudyn)
add_executable(cxx_consumer main.cc)
set_target_properties(cxx_consumer PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
target_link_libraries(cxx_consumer PRIVATE cudyn::cudyn)
CMAKE
    cat > "$consumer/main.c" <<'C'
#include <cudyn.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    int n = -1;
    int st = cudyn_device_count(&n);
    printf("headers %s, library %s, %d device(s): %s\n", CUDYN_VERSION_STRING, cudyn_version(), n,
           cudyn_status_name(st));
    return st == CUDYN_OK && strcmp(cudyn_version(), CUDYN_VERSION_STRING) == 0 ? 0 : 1;
}
C
    cat > "$consumer/main.cc" <<'CXX'
#include <cudyn.hpp>
#include <cstdio>
#include <vector>
int main()
{
    std::vector<int> in{1, 2, 3, 4}, out(4);
    auto buf = cudyn::device_buffer<int>::create(in);
    if (!buf.ok()) {
        std::printf("device_buffer: %s\n", buf.error().message);
        return 1;
    }
    auto r = buf.value().copy_to(out);
    std::printf("round trip through the device: %s\n", r.ok() && out == in ? "PASS" : "FAIL");
    return r.ok() && out == in ? 0 : 1;
}
CXX
    # cmake_build DIR VERSION [-DFIND_ONLY=ON]: configures and builds the
    # consumer wanting VERSION (with FIND_ONLY, only finds the package)
    cmake_build() {
        local dir=$1 want=$2
        shift 2
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake -S "$consumer" -B "$dir" -DWANT="$want" "$@" \
            -DCMAKE_PREFIX_PATH="$stage$prefix" -DCMAKE_C_COMPILER="${CC%% *}" -DCMAKE_CXX_COMPILER="${CXX%% *}" \
            > "$dir.log" 2>&1 &&
            env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake --build "$dir" >> "$dir.log" 2>&1
    }
    if cmake_build "$tmp/cmake-build" 0.2; then
        cmake_ok=yes
        expect_match "$(cat "$tmp/cmake-build/CMakeCache.txt")" "^cudyn_DIR:PATH=$stage$libdir/cmake/cudyn\$"
    else
        echo "FAIL: a CMake project with find_package(cudyn 0.2 REQUIRED) against the staged tree:"
        sed 's/^/    | /' "$tmp/cmake-build.log"
        fail=1
    fi
    # before 1.0 only the same minor version is compatible; never a newer one
    for v in 0.3 0.1 1.0 9.9; do
        if cmake_build "$tmp/cmake-$v" "$v" -DFIND_ONLY=ON; then
            echo "FAIL: find_package(cudyn $v) accepted cudyn $(cat "$top_builddir"/include/cudyn/version.h |
                sed -n 's/^#define CUDYN_VERSION_STRING "\(.*\)"/\1/p')"
            fail=1
        else
            expect_match "$(cat "$tmp/cmake-$v.log")" "cudyn/cudynConfig\\.cmake, version: [0-9]"
        fi
    done
else
    echo "cmake not installed: the CMake package is not tested"
fi

# the ones the mock driver can run, against the installed library; not in
# a sanitizer build, whose library needs its runtime loaded first, which
# the examples' own build (as a user's) does not do
if [ "${CUDYN_SANITIZER:-no}" != no ]; then
    echo "built, not run: the library is built with --enable-sanitizer=$CUDYN_SANITIZER"
    check_uninstall
    finish
fi
export CUDYN_LIBCUDA="$MOCK_LIBCUDA" LD_LIBRARY_PATH="$stage$libdir" MOCK_CUDA_MEM_LIMIT=1073741824
nvrtc=$("$probe" info | sed -n 's/^nvrtc_status=//p')
[ "$nvrtc" = CUDYN_OK ] || export CUDYN_LIBNVRTC="$MOCK_LIBNVRTC"
for ex in saxpy struct_args cxx/saxpy cxx/struct_args; do
    expect_exit 0 "$tmp/examples/$ex"
    expect_match "$out" "PASS$"
done
if [ $cmake_ok = yes ]; then
    for p in c_consumer cxx_consumer; do
        expect_exit 0 "$tmp/cmake-build/$p"
        echo "cmake consumer $p: $out"
        expect_match "$(ldd "$tmp/cmake-build/$p")" "libcudyn\\.so\\.1 => $stage$libdir/libcudyn\\.so\\.1"
    done
    expect_match "$(LD_LIBRARY_PATH= "$tmp/cmake-build/c_consumer" 2>&1)" "^headers [0-9.]+, library [0-9.]+, 1 device\\(s\\): CUDYN_OK$"
fi
expect_match "$(ldd "$tmp/examples/saxpy")" "libcudyn\\.so\\.1 => $stage$libdir/libcudyn\\.so\\.1"
check_uninstall
finish
