#!/bin/bash
# What `make install` gives a user who builds the examples: they are
# installed in $(docdir)/examples with a Makefile that builds them through
# pkg-config, and the programs it builds run against the installed library
# (here staged with DESTDIR, on the mock driver).
. "$top_srcdir/tests/common.sh"
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }
stage="$tmp/stage"
install_staged "$stage"
[ -f "$stage$docdir/NEWS" ] || { echo "FAIL: NEWS is not installed in \$(docdir) ($docdir)"; fail=1; }

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
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$MAKE" -C "$tmp/examples" CC="$CC" > "$tmp/make.log" 2>&1; then
    echo "FAIL: make in the installed examples directory:"
    sed 's/^/    | /' "$tmp/make.log"
    exit 1
fi
expect_match "$(pkg-config --cflags --libs cudyn)" "^-I$stage.* -L$stage.* -lcudyn"
for ex in saxpy struct_args template_kernel in_out; do
    [ -x "$tmp/examples/$ex" ] || { echo "FAIL: the examples' Makefile did not build $ex"; fail=1; }
done

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
for ex in saxpy struct_args; do
    expect_exit 0 "$tmp/examples/$ex"
    expect_match "$out" "PASS$"
done
expect_match "$(ldd "$tmp/examples/saxpy")" "libcudyn\\.so\\.1 => $stage$libdir/libcudyn\\.so\\.1"
check_uninstall
finish
