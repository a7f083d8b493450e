#!/usr/bin/env python3
"""Checks a cudyn wheel the way auditwheel would, with readelf (binutils).

    packaging/check-wheel.py WHEEL [--library lib/.libs/libcudyn.so.1]
                             [--require manylinux_2_17]
    packaging/check-wheel.py --module python/cudyn/.libs/_cudyn.abi3.so --abi3 cp311
    packaging/check-wheel.py --write-stable-abi CPYTHON/Misc/stable_abi.toml

For every shared object in the wheel:
  - NEEDED names only libc, libm, libdl and libpthread (the part of every
    manylinux policy's library list that cudyn needs), or the dynamic
    loader: nothing of CUDA, no libcudyn.so.1;
  - no RPATH or RUNPATH, unless it stays inside the wheel ($ORIGIN);
  - the dynamic symbols it defines are its PyInit_ function alone, so it
    never takes the place of another extension's libcudyn.so.1;
  - the .note.dlopen note is there, naming the driver it opens;
  - with --library, every cudyn_* function of that libcudyn.so.1 is in its
    symbol table: the same library, compiled in.
Then the platform tag, as auditwheel's policy check proves one: the
object's version needs (.gnu.version_r, which the dynamic loader checks
before anything runs) are all GLIBC_X.Y of those libraries, and a
manylinux_X_Y_ARCH tag is honest when no version needed is newer than
GLIBC_X.Y and ARCH is the object's machine.  `manylinux_tag` below is the
one statement of that rule: setup.py tags the wheel with what it says.
A plain linux_ARCH tag is always honest.  --require manylinux_X_Y fails
unless the wheel is tagged manylinux_X_Y_ARCH and its objects meet it.
The file name's tags (what pip reads) are the WHEEL file's.
The Python tag: a cpXY-abi3 wheel (the stable ABI of CPython X.Y, which
every later CPython loads) holds extensions named *.abi3.so that import
nothing of Python but the functions and data of CPython X.Y's stable ABI
(packaging/stable-abi.txt, with the version that added each); a cpXY-cpXY
wheel holds extensions named for that CPython (*.cpython-XY-*.so).
--module checks one extension (the Autotools build's) against --abi3's
stable ABI alone; --write-stable-abi writes packaging/stable-abi.txt from
CPython's Misc/stable_abi.toml (Python 3.11's tomllib).

It prints the wheel's size, the tag, NEEDED, the highest GLIBC version
needed and which symbols need it.  Exit 0 when all hold, 1 otherwise
(each failure said).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile

ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0"}
# The stable ABI's functions and data (PEP 652), each with the CPython
# version that added it: written by --write-stable-abi, beside this file.
STABLE_ABI_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stable-abi.txt")
# stable_abi.toml's feature macros (its items' "ifdef") that a Linux
# CPython release has; the others are Windows's or a debug build's
LINUX_FEATURES = {None, "HAVE_FORK", "PY_HAVE_THREAD_NATIVE_ID"}
# the dynamic loader, by architecture (TLS outside TLS descriptors needs it)
LOADERS = {"x86_64": "ld-linux-x86-64.so.2", "aarch64": "ld-linux-aarch64.so.1"}
# readelf's name of the ELF machine, as a wheel's platform tag names it
MACHINES = {"Advanced Micro Devices X86-64": "x86_64", "AArch64": "aarch64"}
# the oldest manylinux policy the PyPA still maintains (manylinux2014):
# an object that needs less is tagged with it all the same
MANYLINUX_FLOOR = (2, 17)


def readelf(*args):
    return subprocess.run(["readelf", "-W"] + list(args), check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def version_key(v):
    return tuple(int(p) for p in v.split("."))


def dynamic_symbols(path):
    """(undefined versioned references {version: [symbols]}, exported names,
    undefined unversioned names: what the interpreter gives an extension)."""
    needs, exports, plain = {}, [], []
    for line in readelf("--dyn-syms", path).splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(":"):
            continue
        name, _, version = f[7].partition("@")
        if f[6] == "UND":
            if version:
                needs.setdefault(version.lstrip("@"), []).append(name)
            elif name:
                plain.append(name)
        elif f[4] in ("GLOBAL", "WEAK") and f[5] in ("DEFAULT", "PROTECTED"):
            exports.append(name)
    return needs, exports, plain


def version_needs(path):
    """{library: [versions]}: the object's .gnu.version_r, as the loader reads it."""
    needs, library = {}, None
    for line in readelf("-V", path).splitlines():
        m = re.search(r"\bFile: (\S+)", line)
        if m:
            library = needs.setdefault(m.group(1), [])
            continue
        m = re.search(r"\bName: (\S+)\s+Flags:", line)
        if m and library is not None:
            library.append(m.group(1))
    return needs


def elf_facts(path):
    """What the policy and the checks read of one shared object."""
    dynamic = readelf("-d", path)
    header = readelf("-h", path)
    machine = re.search(r"^\s*Machine:\s*(.*?)\s*$", header, re.M)
    symbols, exports, plain = dynamic_symbols(path)
    return {
        "arch": MACHINES.get(machine.group(1) if machine else "", None),
        "needed": re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", dynamic),
        "paths": re.findall(r"\((RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[(.*?)\]", dynamic),
        "version_needs": version_needs(path),
        "glibc_symbols": {v[len("GLIBC_"):]: names for v, names in symbols.items() if v.startswith("GLIBC_")},
        "exports": exports,
        "python_imports": sorted(n for n in plain if n.startswith(("Py", "_Py"))),
    }


def manylinux_tag(facts):
    """(the lowest manylinux_X_Y_ARCH tag the object meets, or None; why not).

    The policy: the machine is one the tag can name; every NEEDED library is
    allowed; every version the object needs is GLIBC_X.Y of an allowed
    library; the tag's X.Y is the newest of them, or the floor."""
    why = []
    if not facts["arch"]:
        why.append("an ELF machine no manylinux tag here names")
    allowed = ALLOWED_NEEDED | {LOADERS.get(facts["arch"], "")}
    for lib in facts["needed"]:
        if lib not in allowed:
            why.append(f"NEEDED {lib}: not on every manylinux platform")
    newest = MANYLINUX_FLOOR
    for lib, versions in facts["version_needs"].items():
        for version in versions:
            m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", version)
            if lib not in allowed or not m:
                why.append(f"needs {version} of {lib}: not a GLIBC version of an allowed library")
            else:
                newest = max(newest, (int(m.group(1)), int(m.group(2))))
    if why:
        return None, why
    return "manylinux_%d_%d_%s" % (newest + (facts["arch"],)), []


def check_object(path, name, library):
    """The facts of one shared object, and its failures."""
    facts, failures = elf_facts(path), []
    allowed = ALLOWED_NEEDED | {LOADERS.get(facts["arch"], "")}
    for lib in facts["needed"]:
        if lib not in allowed:
            failures.append(f"{name}: NEEDED {lib}: not on every manylinux platform")
    for kind, value in facts["paths"]:
        outside = [p for p in value.split(":") if not p.startswith("$ORIGIN")]
        if outside:
            failures.append(f"{name}: {kind} {':'.join(outside)} points outside the wheel")
    init = "PyInit_" + os.path.basename(name).split(".")[0]
    if sorted(facts["exports"]) != [init]:
        failures.append(f"{name}: exports {', '.join(sorted(facts['exports'])) or 'nothing'}, not {init} alone")
    note = subprocess.run(["readelf", "-p", ".note.dlopen", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True).stdout
    if '"libcuda.so.1"' not in note:
        failures.append(f"{name}: no .note.dlopen naming libcuda.so.1")
    facts["inside"] = 0
    if library:
        symbols = set(re.findall(r"\s(cudyn_\w+)$", readelf("-s", path), re.M))
        public = {s for s in dynamic_symbols(library)[1] if s.startswith("cudyn_")}
        missing = sorted(public - symbols)
        if missing:
            failures.append(f"{name}: {len(missing)} functions of {library} are not inside: {' '.join(missing[:8])}")
        facts["inside"] = len(public & symbols)
    facts["manylinux"], facts["why_not"] = manylinux_tag(facts)
    return facts, failures


# ------------------------------------------------------------ the stable ABI

def write_stable_abi(toml_path, out_path=STABLE_ABI_FILE):
    """packaging/stable-abi.txt from CPython's Misc/stable_abi.toml: every
    function and data item a Linux CPython exports (abi_only ones too,
    which the limited API's macros call), one "name version" a line."""
    import tomllib  # Python 3.11
    with open(toml_path, "rb") as f:
        toml = tomllib.load(f)
    items = sorted((name, item["added"]) for kind in ("function", "data") for name, item in toml[kind].items()
                   if item.get("ifdef") in LINUX_FEATURES)
    newest = max((version_key(v) for _, v in items), default=(0, 0))
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("# The stable ABI (PEP 652): the functions and data a Linux CPython exports to extensions built\n"
                  "# with Py_LIMITED_API, each with the CPython version that added it.  Written by\n"
                  "# packaging/check-wheel.py --write-stable-abi from CPython's Misc/stable_abi.toml (that of the\n"
                  "# version on the line below, or a later one): not edited by hand.\n")
        out.write("# covers %d.%d\n" % newest)
        out.writelines(f"{name} {added}\n" for name, added in items)
    return len(items)


def stable_abi(path=STABLE_ABI_FILE):
    """({symbol: the version that added it, as (3, 11)}, the newest version the list covers)."""
    symbols, covers = {}, (0, 0)
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.fullmatch(r"# covers (\d+)\.(\d+)\s*", line)
            if m:
                covers = (int(m.group(1)), int(m.group(2)))
            elif line.strip() and not line.startswith("#"):
                name, added = line.split()
                symbols[name] = version_key(added)
    return symbols, covers


def outside_stable_abi(facts, floor):
    """The Python symbols an object imports that CPython `floor`'s stable
    ABI lacks, or a reason the list cannot say."""
    symbols, covers = stable_abi()
    if floor > covers:
        return [f"(packaging/stable-abi.txt covers CPython {covers[0]}.{covers[1]}, not {floor[0]}.{floor[1]}: "
                "write it again from a newer Misc/stable_abi.toml)"]
    return [name for name in facts["python_imports"] if symbols.get(name, (99, 99)) > floor]


def abi_failures(tags, objects):
    """Whether each of the wheel's Python tags is honest for every object:
    cpXY-abi3 (*.abi3.so, CPython X.Y's stable ABI alone) or cpXY-cpXY
    (extensions named for that CPython)."""
    failures = []
    for tag in tags:
        python, abi = tag.split("-")[:2]
        m = re.fullmatch(r"cp(\d)(\d+)", python)
        if abi == "abi3" and not m:
            failures.append(f"tag {tag}: abi3 needs a CPython tag (cp3X), not {python}")
        for name, facts in objects.items() if m else ():
            if abi == "abi3" and not name.endswith(".abi3.so"):
                failures.append(f"tag {tag}, but {name} is not named as a stable-ABI extension (.abi3.so): "
                                "only the CPython its name gives loads it")
            elif abi == "abi3":
                outside = outside_stable_abi(facts, (int(m.group(1)), int(m.group(2))))
                if outside:
                    failures.append(f"tag {tag}, but {name} imports what CPython {m.group(1)}.{m.group(2)}'s "
                                    f"stable ABI lacks: {' '.join(outside[:8])}")
            elif abi == python and f".cpython-{m.group(1)}{m.group(2)}-" not in name and \
                    not name.endswith(".abi3.so"):
                failures.append(f"tag {tag}, but {name} is not named for CPython {m.group(1)}.{m.group(2)}")
    return failures


def tag_of(archive):
    for member in archive.namelist():
        if member.endswith(".dist-info/WHEEL"):
            return re.findall(r"^Tag: (\S+)$", archive.read(member).decode(), re.M)
    return []


def filename_tags(path):
    """The tags a wheel's file name gives (what pip reads), expanded."""
    parts = os.path.basename(path)[:-len(".whl")].split("-")
    if len(parts) not in (5, 6):
        return set()
    py, abi, plat = parts[-3:]
    return {f"{a}-{b}-{c}" for a in py.split(".") for b in abi.split(".") for c in plat.split(".")}


def tag_failures(tags, objects, require):
    """Whether each of the wheel's tags is honest for every object in it."""
    failures = []
    for tag in tags:
        platform = tag.split("-")[-1]
        m = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", platform)
        if not m and not re.fullmatch(r"linux_\w+", platform):
            failures.append(f"tag {tag} is neither linux_ARCH nor manylinux_X_Y_ARCH")
        if not m:
            continue
        claimed = (int(m.group(1)), int(m.group(2)))
        for name, facts in objects.items():
            if facts["manylinux"] is None:
                failures.append(f"tag {tag}, but {name} meets no manylinux policy: {'; '.join(facts['why_not'])}")
                continue
            if facts["arch"] != m.group(3):
                failures.append(f"tag {tag}, but {name} is for {facts['arch']}")
            for version, symbols in sorted(facts["glibc_symbols"].items(), key=lambda v: version_key(v[0])):
                if version_key(version)[:2] > claimed:
                    failures.append(f"tag {tag}, but {name} needs GLIBC_{version} for {', '.join(sorted(set(symbols)))}")
            lowest = re.fullmatch(r"manylinux_(\d+)_(\d+)_\w+", facts["manylinux"])
            if (int(lowest.group(1)), int(lowest.group(2))) > claimed:
                failures.append(f"tag {tag}, but {name} needs {facts['manylinux']}")
    if require:
        wanted = [t for t in tags if t.split("-")[-1].startswith(require + "_")]
        if not wanted:
            failures.append(f"--require {require}: the wheel is tagged {', '.join(tags) or 'nothing'}")
        for name, facts in objects.items():
            if facts["manylinux"] and not facts["manylinux"].startswith(require + "_"):
                failures.append(f"--require {require}: {name} needs {facts['manylinux']}")
    return failures


def check_module(path, abi3):
    """--module: one extension against the stable ABI of --abi3's CPython."""
    m = re.fullmatch(r"cp(\d)(\d+)", abi3 or "")
    if not m:
        print(f"check-wheel: --module needs --abi3 cpXY, not {abi3}")
        return 2
    facts = elf_facts(path)
    outside = outside_stable_abi(facts, (int(m.group(1)), int(m.group(2))))
    print(f"{path}: {len(facts['python_imports'])} Python symbols imported")
    for name in outside:
        print(f"FAIL: {path} imports what CPython {m.group(1)}.{m.group(2)}'s stable ABI lacks: {name}")
    print("check-wheel: " + ("FAILED" if outside else f"OK: only CPython {m.group(1)}.{m.group(2)}'s stable ABI"))
    return 1 if outside else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("wheel", nargs="?")
    p.add_argument("--library", help="a libcudyn.so.1 whose cudyn_* functions must all be inside")
    p.add_argument("--require", metavar="manylinux_X_Y", help="the wheel must be tagged manylinux_X_Y and meet it")
    p.add_argument("--module", help="check this extension (no wheel) against --abi3's stable ABI")
    p.add_argument("--abi3", metavar="cpXY", help="with --module: the CPython whose stable ABI it keeps to")
    p.add_argument("--write-stable-abi", metavar="STABLE_ABI_TOML", help="write " + STABLE_ABI_FILE + " from it")
    args = p.parse_args()
    if args.write_stable_abi:
        print(f"{STABLE_ABI_FILE}: {write_stable_abi(args.write_stable_abi)} symbols")
        return 0
    if args.module:
        return check_module(args.module, args.abi3)
    if not args.wheel:
        p.error("a wheel, --module or --write-stable-abi")
    if args.require and not re.fullmatch(r"manylinux_\d+_\d+", args.require):
        p.error(f"--require {args.require}: not manylinux_X_Y")
    return check_wheel(args.wheel, args.library, args.require)


def check_wheel(wheel, library, require):
    failures, objects = [], {}
    with zipfile.ZipFile(wheel) as archive, tempfile.TemporaryDirectory() as tmp:
        members = [m for m in archive.namelist() if re.search(r"\.so(\.\d+)*$", m)]
        if not members:
            failures.append("no shared object in the wheel")
        for member in members:
            objects[member], failed = check_object(archive.extract(member, tmp), member, library)
            failures += failed
        tags = tag_of(archive)
    failures += tag_failures(tags, objects, require) + abi_failures(tags, objects)
    if filename_tags(wheel) != set(tags):
        failures.append(f"the file name's tags ({', '.join(sorted(filename_tags(wheel))) or 'none'}) are not "
                        f"WHEEL's ({', '.join(tags) or 'none'})")
    needed = sorted({lib for facts in objects.values() for lib in facts["needed"]})
    glibc = {}
    for facts in objects.values():
        for version, symbols in facts["glibc_symbols"].items():
            glibc.setdefault(version, set()).update(symbols)
    size = os.path.getsize(wheel)
    print(f"wheel: {os.path.basename(wheel)}: {size} bytes ({size / 1024:.0f} KiB)")
    print(f"tag: {', '.join(tags) or 'none'}")
    print(f"NEEDED: {', '.join(needed) or 'nothing'}")
    if glibc:
        top = max(glibc, key=version_key)
        print(f"highest GLIBC version: GLIBC_{top}, for {', '.join(sorted(glibc[top]))}")
    for name, facts in objects.items():
        print(f"{name}: {facts['manylinux'] or 'no manylinux policy'} by its symbol table; "
              f"{len(facts['python_imports'])} Python symbols imported")
    if library:
        print(f"library inside: {sum(f['inside'] for f in objects.values())} cudyn_* functions of {library}")
    for line in failures:
        print("FAIL:", line)
    print("check-wheel: " + ("FAILED" if failures else "OK: NEEDED, RPATH, exports, .note.dlopen, tag and Python ABI "
                             "as auditwheel would want them"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
