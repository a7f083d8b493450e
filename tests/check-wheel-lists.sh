#!/bin/bash
# The wheel (setup.py) and the Autotools build compile the same things the
# same way: setup.py reads its lists from Makefile.am and the local.mk
# files it includes, and this test compares what it reads with what make
# itself expands here, so that a file make compiles and the wheel does not
# (or the reverse: a list written where setup.py does not look, in a way it
# cannot read) fails.  Compared:
#  - the library's and the extension's sources (lib_libcudyn_la_SOURCES,
#    python_cudyn__cudyn_la_SOURCES) and their preprocessor flags;
#  - the code-generation flags (-std, -f, -m) of the library's CFLAGS;
#  - the Python files installed (PYTHON_PACKAGE_FILES, subpackages too);
#  - config.h: every macro setup.py defines has configure's value, and
#    every macro of configure's config.h that a compiled source names, or
#    that selects system extensions (_GNU_SOURCE ...), is defined by
#    setup.py the same way (the version among them).
# (The wheel also compiles python/manylinux_glibc.c, its own file, which no
# make list holds.)
# Needs a Python with setuptools (the wheel's backend); skips without one.
. "$top_srcdir/tests/common.sh"
python=${PYTHON:-}
[ -n "$python" ] || { echo "SKIP: configure found no Python 3"; exit 77; }
"$python" -c 'import setuptools' 2>/dev/null || { echo "SKIP: $python has no setuptools (python3-setuptools)"; exit 77; }

# make's own expansion of each variable, in this build tree
printf 'cudyn-print-%%:\n\t@echo $($*)\n' > "$tmp/print.mk"
make_value() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$MAKE" -s --no-print-directory -C "$top_builddir" -f Makefile \
        -f "$tmp/print.mk" "cudyn-print-$1"
}
for v in lib_libcudyn_la_SOURCES lib_libcudyn_la_CPPFLAGS lib_libcudyn_la_CFLAGS SANITIZER_FLAGS \
    python_cudyn__cudyn_la_SOURCES python_cudyn__cudyn_la_CPPFLAGS PYTHON_CPPFLAGS PYTHON_PACKAGE_FILES srcdir; do
    make_value "$v" > "$tmp/make.$v" || { echo "FAIL: make could not print $v"; exit 1; }
done

PYTHONDONTWRITEBYTECODE=1 "$python" - "$top_srcdir" "$top_builddir" "$tmp" "${PYTHON_MODULE:-no}" <<'PY'
import importlib.util, os, re, sys, tempfile

top, build, tmp, module_built = sys.argv[1:5]
spec = importlib.util.spec_from_file_location("cudyn_setup", os.path.join(top, "setup.py"))
setup = importlib.util.module_from_spec(spec)
spec.loader.exec_module(setup)  # not as __main__: nothing is built
from distutils.ccompiler import new_compiler  # setuptools' copy (imported above)
from distutils.sysconfig import customize_compiler

failures = []


def make(name):
    with open(os.path.join(tmp, "make." + name)) as f:
        return f.read().split()


def same(what, make_list, setup_list):
    only_make = sorted(set(make_list) - set(setup_list))
    only_setup = sorted(set(setup_list) - set(make_list))
    for label, items in (("make only", only_make), ("setup.py only", only_setup)):
        if items:
            failures.append(f"{what}: {label}: {' '.join(items)}")


def relative(words):  # make's paths are from the build tree, with $(srcdir) in front
    srcdir = make("srcdir")[0]
    return [w[len(srcdir) + 1:] if w.startswith(srcdir + "/") else w for w in words]


def include_dirs(flags, base):
    return [os.path.realpath(os.path.join(base, f[2:])) if f.startswith("-I") else f for f in flags]


lists = setup.build_lists(top_builddir=build)
same("library sources", relative(make("lib_libcudyn_la_SOURCES")), lists["library"])
same("library preprocessor flags", include_dirs(make("lib_libcudyn_la_CPPFLAGS"), build),
     include_dirs(lists["library_cppflags"], build))
if module_built == "yes":
    same("extension sources", relative(make("python_cudyn__cudyn_la_SOURCES")), lists["module"])
    # less the Python headers' directory, which setuptools adds itself
    python_h = set(make("PYTHON_CPPFLAGS"))
    same("extension preprocessor flags",
         include_dirs([f for f in make("python_cudyn__cudyn_la_CPPFLAGS") if f not in python_h], build),
         include_dirs(lists["module_cppflags"], build))
same("Python files", relative(make("PYTHON_PACKAGE_FILES")), setup.python_files())

compiler = new_compiler()
customize_compiler(compiler)
scratch = tempfile.mkdtemp(dir=tmp)
sanitizer = set(make("SANITIZER_FLAGS"))
codegen = [f for f in make("lib_libcudyn_la_CFLAGS") if f not in sanitizer and re.match(r"-(std=|f|m)", f)]
same("code-generation flags", codegen, setup.accepted_flags(compiler, setup.CODEGEN_FLAGS, scratch))

configure_h = {}
with open(os.path.join(build, "config.h")) as f:
    for m in re.finditer(r"^#\s*define\s+(\w+)(?:[ \t]+(.*))?$", f.read(), re.M):
        configure_h[m.group(1)] = (m.group(2) or "").strip()
wheel_h = setup.config_facts(compiler, scratch)
compiled = ""
for source in lists["library"] + lists["module"] + ["include/cudyn.h"]:
    with open(os.path.join(top, source), encoding="utf-8") as f:
        compiled += f.read()
for name, value in sorted(wheel_h.items()):
    if configure_h.get(name) != value:
        failures.append(f"config.h: setup.py defines {name} {value}, configure {configure_h.get(name, '(nothing)')}")
for name, value in sorted(configure_h.items()):
    if (name.startswith("_") or re.search(r"\b%s\b" % name, compiled)) and name not in wheel_h:
        failures.append(f"config.h: configure defines {name} {value}, which the sources use; setup.py does not")

for line in failures:
    print("FAIL:", line)
print(f"wheel lists: {len(lists['library'])} library and {len(lists['module'])} extension files, "
      f"{len(setup.python_files())} Python files, {len(wheel_h)} config.h facts, flags {' '.join(codegen)}: "
      + ("they differ" if failures else "the same in both builds"))
sys.exit(1 if failures else 0)
PY
[ $? = 0 ] || fail=1
finish
