#!/bin/bash
# The .note.dlopen metadata (systemd ELF_DLOPEN_METADATA) of the built
# libcudyn.so.1, read back from the file: one FDO note of type 0x407c0c0a
# whose JSON declares libcuda.so.1 (required), the NVRTC sonames the
# loader tries, in its order (recommended), NVRTC's builtins, NVML and
# NCCL (suggested); packaging/debian/control recommends and suggests the
# same, and docs/reference.md's table names each library.
. "$top_srcdir/tests/common.sh"
lib="$top_builddir/lib/.libs/libcudyn.so.1"
[ -e "$lib" ] || { echo "SKIP: no shared library built"; exit 77; }

# the notes of the .note.dlopen section, one JSON line each
notes=$(/usr/bin/python3 - "$lib" <<'PY'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a little-endian ELF64 file"
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
def section(i):
    name, type_, _, _, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
    return name, type_, off, size
_, _, stroff, _ = section(shstrndx)
for i in range(shnum):
    name, type_, off, size = section(i)
    sname = data[stroff + name:data.index(b"\0", stroff + name)].decode()
    if sname != ".note.dlopen":
        continue
    print("section_type=%d" % type_)  # SHT_NOTE is 7
    end = off + size
    while off + 12 <= end:
        namesz, descsz, ntype = struct.unpack_from("<III", data, off)
        owner = data[off + 12:off + 12 + namesz].rstrip(b"\0").decode()
        doff = off + 12 + ((namesz + 3) & ~3)
        desc = data[doff:doff + descsz]
        assert desc.endswith(b"\0"), "description not NUL-terminated"
        print("note owner=%s type=0x%08x" % (owner, ntype))
        for entry in json.loads(desc[:-1].decode()):
            print("%s %s %s" % (entry["feature"], entry["priority"], " ".join(entry["soname"])))
            assert entry["description"], "an entry without a description"
        off = doff + ((descsz + 3) & ~3)
PY
) || { echo "FAIL: the note cannot be read"; fail=1; }
printf '%s\n' "$notes"
expect_line "$notes" "section_type=7"
expect_line "$notes" "note owner=FDO type=0x407c0c0a"
expect_line "$notes" "cuda required libcuda.so.1"

# NVRTC: exactly the sonames the loader tries, in its order
tried=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" env -u CUDYN_LIBNVRTC "$cudainfo" --explain 2>/dev/null |
    sed -n 's/^\(libnvrtc\.so\.[0-9.]*\) \[already loaded\].*/\1/p' | tr '\n' ' ' | sed 's/ $//')
[ -n "$tried" ] || { echo "FAIL: the loader's NVRTC trace named no soname"; fail=1; }
expect_line "$notes" "nvrtc recommended $tried"
builtins=$(printf '%s\n' "$notes" | sed -n 's/^nvrtc-builtins suggested //p')
expect_match "$builtins" "^libnvrtc-builtins\.so\.[0-9]+\.[0-9]+( libnvrtc-builtins\.so\.[0-9]+\.[0-9]+)*$"

# packaging/debian/control: the package of libX.so.N is libXN
package() { printf '%s\n' "$@" | sed 's/\.so\./ /; s/ //'; }
control="$top_srcdir/packaging/debian/control"
field() { # the libcudyn1 stanza's field $1, one line
    awk -v f="$1" '/^Package: /{p = ($2 == "libcudyn1")} p && /^[A-Za-z-]+:/{cur = $1} p && cur == f":" && !/^#/' \
        "$control" | sed "s/^$1://" | tr -d '\n' | tr -s ' '
}
expect_line "$notes" "nvml suggested libnvidia-ml.so.1"
expect_line "$notes" "nccl suggested libnccl.so.2"
if [ -r "$control" ]; then
    recommends=$(field Recommends)
    suggests=$(field Suggests)
    expect_match "$recommends" "(^| )libcuda1,"
    expect_match "$recommends" " $(package $tried | tr '\n' '|' | sed 's/|$//; s/|/ \\| /g')$"
    expect_match "$suggests" " $(package $builtins | tr '\n' '|' | sed 's/|$//; s/|/ \\| /g'), $(package libnvidia-ml.so.1), $(package libnccl.so.2)$"
else
    echo "packaging/debian is not in this tree (a release tarball): its fields are not compared"
fi

# docs/reference.md's table of libraries opened at run time names each
# library of the note (by its name up to .so: the table abbreviates the
# versions)
reference="$top_srcdir/docs/reference.md"
for stem in $(printf '%s\n' "$notes" | awk 'NF >= 3 && $1 != "note" { for (i = 3; i <= NF; i++) { sub(/\.so.*/, ".so", $i); print $i } }' | sort -u); do
    grep -qE "^\| .*\`$stem" "$reference" ||
        { echo "FAIL: docs/reference.md's table of libraries opened at run time does not name $stem"; fail=1; }
done

finish
