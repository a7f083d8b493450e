#!/usr/bin/env python3
"""Checks a cudyn wheel the way auditwheel would, with readelf (binutils).

    packaging/check-wheel.py WHEEL [--library lib/.libs/libcudyn.so.1]

For every shared object in the wheel:
  - NEEDED names only libc, libm, libdl and libpthread (what every
    manylinux platform provides): nothing of CUDA, no libcudyn.so.1;
  - no RPATH or RUNPATH, unless it stays inside the wheel ($ORIGIN);
  - the dynamic symbols it defines are its PyInit_ function alone, so it
    never takes the place of another extension's libcudyn.so.1;
  - the .note.dlopen note is there, naming the driver it opens;
  - with --library, every cudyn_* function of that libcudyn.so.1 is in its
    symbol table: the same library, compiled in.
It prints the wheel's size, the NEEDED entries, the highest GLIBC symbol
version used (and which symbols need it: a manylinux_2_X wheel must need
no more than GLIBC_2.X) and the tag, and checks the tag is honest: a
manylinux tag needs no GLIBC newer than the tag says, and a plain linux_
tag is what a wheel built on this machine and not repaired must have.
Exit 0 when all hold, 1 otherwise (each failure said).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile

ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0"}


def readelf(*args):
    return subprocess.run(["readelf", "-W"] + list(args), check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def version_key(v):
    return tuple(int(p) for p in v.split("."))


def glibc_needs(path):
    """{GLIBC version: [symbols]} of the undefined symbols the object binds."""
    needs = {}
    for m in re.finditer(r"\bUND (\S+)@GLIBC_([0-9.]+)", readelf("--dyn-syms", path)):
        needs.setdefault(m.group(2), []).append(m.group(1))
    return needs


def exported(path):
    """The symbols the object defines for others: global or weak, visible."""
    names = []
    for line in readelf("--dyn-syms", path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[6] != "UND" and f[4] in ("GLOBAL", "WEAK") \
                and f[5] in ("DEFAULT", "PROTECTED"):
            names.append(f[7].split("@")[0])
    return names


def check_object(path, name, library, failures):
    """The facts of one shared object; failures appended."""
    dynamic = readelf("-d", path)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", dynamic)
    for lib in needed:
        if lib not in ALLOWED_NEEDED and not lib.startswith("ld-linux"):
            failures.append(f"{name}: NEEDED {lib}: not on every manylinux platform")
    for kind, value in re.findall(r"\((RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[(.*?)\]", dynamic):
        outside = [p for p in value.split(":") if not p.startswith("$ORIGIN")]
        if outside:
            failures.append(f"{name}: {kind} {':'.join(outside)} points outside the wheel")
    init = "PyInit_" + os.path.basename(name).split(".")[0]
    if sorted(exported(path)) != [init]:
        failures.append(f"{name}: exports {', '.join(sorted(exported(path))) or 'nothing'}, not {init} alone")
    note = subprocess.run(["readelf", "-p", ".note.dlopen", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True).stdout
    if '"libcuda.so.1"' not in note:
        failures.append(f"{name}: no .note.dlopen naming libcuda.so.1")
    inside = 0
    if library:
        symbols = set(re.findall(r"\s(cudyn_\w+)$", readelf("-s", path), re.M))
        public = {s for s in exported(library) if s.startswith("cudyn_")}
        missing = sorted(public - symbols)
        if missing:
            failures.append(f"{name}: {len(missing)} functions of {library} are not inside: {' '.join(missing[:8])}")
        inside = len(public & symbols)
    return {"needed": needed, "glibc": glibc_needs(path), "inside": inside}


def tag_of(archive):
    for member in archive.namelist():
        if member.endswith(".dist-info/WHEEL"):
            return re.findall(r"^Tag: (\S+)$", archive.read(member).decode(), re.M)
    return []


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("wheel")
    p.add_argument("--library", help="a libcudyn.so.1 whose cudyn_* functions must all be inside")
    args = p.parse_args()
    failures, needed, glibc, inside = [], set(), {}, 0
    with zipfile.ZipFile(args.wheel) as archive, tempfile.TemporaryDirectory() as tmp:
        objects = [m for m in archive.namelist() if re.search(r"\.so(\.\d+)*$", m)]
        if not objects:
            failures.append("no shared object in the wheel")
        for member in objects:
            facts = check_object(archive.extract(member, tmp), member, args.library, failures)
            needed.update(facts["needed"])
            inside += facts["inside"]
            for version, symbols in facts["glibc"].items():
                glibc.setdefault(version, []).extend(symbols)
        tags = tag_of(archive)
    top = max(glibc, key=version_key) if glibc else None
    for tag in tags:
        m = re.search(r"manylinux_(\d+)_(\d+)_", tag)
        if m and top and version_key(top) > (int(m.group(1)), int(m.group(2))):
            failures.append(f"tag {tag}, but GLIBC_{top} is needed")
        if not m and not re.search(r"-linux_\w+$", tag):
            failures.append(f"tag {tag} is neither linux_ARCH nor manylinux_X_Y_ARCH")
    size = os.path.getsize(args.wheel)
    print(f"wheel: {os.path.basename(args.wheel)}: {size} bytes ({size / 1024:.0f} KiB)")
    print(f"tag: {', '.join(tags) or 'none'}")
    print(f"NEEDED: {', '.join(sorted(needed)) or 'nothing'}")
    if top:
        print(f"highest GLIBC version: GLIBC_{top}, for {', '.join(sorted(set(glibc[top])))}")
    if args.library:
        print(f"library inside: {inside} cudyn_* functions of {args.library}")
    for line in failures:
        print("FAIL:", line)
    print("check-wheel: " + ("FAILED" if failures else "OK: NEEDED, RPATH, exports, .note.dlopen and tag as auditwheel "
                             "would want them"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
