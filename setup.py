"""The Python module cudyn as a wheel or an sdist, with no Autotools run.

`pip install .`, `pip install cudyn-X.Y.Z.tar.gz` (the `make dist` tarball)
and `python3 -m build` reach this file through setuptools, the PEP 517
backend named in pyproject.toml.  They need a C compiler and the Python
headers: no configure, no CUDA, no numpy.

Every fact of the build is read from the Autotools build's own files, so
that the two builds compile the same sources the same way;
tests/check-wheel-lists.sh compares what is read here with what make
expands, and fails when they drift:
  - the version: AC_INIT in configure.ac;
  - the sources: lib_libcudyn_la_SOURCES and python_cudyn__cudyn_la_SOURCES,
    and their CPPFLAGS, as Makefile.am and the local.mk files it includes
    assign them (a file added to a list there is compiled here too);
  - config.h: configure.ac's checks answered the same way (AC_INIT's
    names, AC_CHECK_FUNCS and AC_SEARCH_LIBS by a test link, the pointer
    size, AC_USE_SYSTEM_EXTENSIONS);
  - include/cudyn/version.h: include/cudyn/version.h.in with AC_INIT's numbers;
  - the Python files: every package under python/cudyn (a directory with
    an __init__.py), its .py and .pyi files and py.typed, as
    python/local.mk installs them.

The extension is built for Python's stable ABI (abi3): the module's
sources are written over the limited C API, compiled with Py_LIMITED_API
for the floor pyproject.toml's requires-python names (">=3.11", as
configure reads it too), so the one extension, _cudyn.abi3.so, loads in
that CPython and every later one, and the wheel is tagged cp311-abi3.
With CUDYN_VERSION_SPECIFIC=1 in the environment the same sources build
the version-specific module instead, over the building CPython's full C
API (no Py_LIMITED_API; _cudyn.cpython-311-x86_64-linux-gnu.so, a
cp311-cp311 wheel): the one the package index serves to CPython 3.11,
whose limited API has no vectorcall (python/README.md, "Types under the
limited API", says why and what it costs).

The library is compiled into the extension: one shared object that needs
only the C library (libc, and libdl and libpthread where glibc kept the
older versions of dlopen and pthread_once), with nothing of cudyn's
beside it.  Its symbols stay local (a version script exports
PyInit__cudyn alone), so it never takes the place of a libcudyn.so.1 that
another extension loads, nor binds to one.  The driver, NVRTC and NVML stay opened with dlopen at run time, and
the library's .note.dlopen note (lib/loader/dlopen_note.c) says which.

The wheel runs on glibc 2.17 and later, whatever glibc builds it:
python/manylinux_glibc.c, compiled into the extension here only, binds
the few functions a newer glibc gave a new symbol version at the version
glibc 2.17 had.  The platform tag is what packaging/check-wheel.py's
manylinux_tag proves from the built extension's symbol table
(manylinux_2_17_x86_64 on x86-64), and linux_ARCH where it proves none.
"""

import contextlib
import importlib.util
import os
import platform
import re
import struct
import subprocess
import sys
import tempfile

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError, LinkError

try:  # setuptools 70.1 and later
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    try:  # before, the wheel package's (without it, no wheel: an sdist still builds)
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

TOP = os.path.dirname(os.path.abspath(__file__))
# the code-generation flags of configure.ac's CUDYN_CFLAGS and
# CUDYN_VISIBILITY_CFLAGS, each taken where the compiler accepts it, as
# configure does (warnings are left to the compiler's defaults here)
CODEGEN_FLAGS = ("-std=c11", "-fvisibility=hidden", "-mtls-dialect=gnu2")
# what AC_USE_SYSTEM_EXTENSIONS defines (Autoconf 2.71): the system
# headers' extensions, _GNU_SOURCE among them
SYSTEM_EXTENSIONS = (
    "_ALL_SOURCE", "_DARWIN_C_SOURCE", "__EXTENSIONS__", "_GNU_SOURCE", "_HPUX_ALT_XOPEN_SOCKET_API",
    "_NETBSD_SOURCE", "_OPENBSD_SOURCE", "_POSIX_PTHREAD_SEMANTICS", "__STDC_WANT_IEC_60559_ATTRIBS_EXT__",
    "__STDC_WANT_IEC_60559_BFP_EXT__", "__STDC_WANT_IEC_60559_DFP_EXT__", "__STDC_WANT_IEC_60559_FUNCS_EXT__",
    "__STDC_WANT_IEC_60559_TYPES_EXT__", "__STDC_WANT_LIB_EXT2__", "__STDC_WANT_MATH_SPEC_FUNCS__",
    "_TANDEM_SOURCE",
)
EXTENSION = "cudyn._cudyn"
# the wheel's glibc floor (its own file: the Autotools build has no use for it)
MANYLINUX_SOURCE = "python/manylinux_glibc.c"
# the libraries that hold the older versions it binds on a glibc before 2.34,
# named as their sonames (glibc 2.34 and later have no libdl.so to link with
# -ldl) and kept in NEEDED although a newer glibc's libc.so.6 answers them
GLIBC_OLD_LIBRARIES = ("-Wl,--push-state,--no-as-needed", "-l:libdl.so.2", "-l:libpthread.so.0", "-Wl,--pop-state")


def read(relative):
    with open(os.path.join(TOP, relative), encoding="utf-8") as f:
        return f.read()


# ---------------------------------------------------------------- configure.ac

def ac_init():
    """AC_INIT's arguments: package, version, bug-report, tarname, url."""
    m = re.search(r"^AC_INIT\((.*)\)\s*$", read("configure.ac"), re.M)
    if not m:
        raise SystemExit("setup.py: no AC_INIT(...) line in configure.ac")
    args = [a.strip().strip("[]") for a in m.group(1).split(",")]
    return (args + [""] * 5)[:5]


def version():
    return ac_init()[1]


# ---------------------------------------------------------------- pyproject.toml

def python_floor():
    """requires-python's floor, (3, 11): the oldest CPython the module is
    built for, whose stable ABI it uses (configure reads the same line)."""
    m = re.search(r'^requires-python = ">=(3)\.(\d+)"\s*$', read("pyproject.toml"), re.M)
    if not m:
        raise SystemExit('setup.py: no requires-python = ">=3.N" line in pyproject.toml')
    return int(m.group(1)), int(m.group(2))


def limited_api():
    """Py_LIMITED_API for the floor, as configure substitutes it (0x030B0000)."""
    return "0x%02X%02X0000" % python_floor()


def abi3_tag():
    """The wheel's Python tag for the floor's stable ABI (cp311)."""
    return "cp%d%d" % python_floor()


def version_specific():
    """Whether this build makes the version-specific module (the building
    CPython's full C API) in place of the abi3 one."""
    return os.environ.get("CUDYN_VERSION_SPECIFIC", "") not in ("", "0")


def ac_calls(macro):
    """The first argument of every MACRO([...]) in configure.ac, as words."""
    return [m.split() for m in re.findall(r"^\s*" + macro + r"\(\[([^]]*)\]", read("configure.ac"), re.M)]


# ---------------------------------------------------------------- Makefile.am

class MakeVariables:
    """The variables of Makefile.am and the files it includes, as Automake
    reads them: `=` and `+=` assignments with their continuation lines.
    Both arms of a conditional count; a variable assigned with `=` twice
    is ambiguous and refused, and so is anything that needs make to expand
    (a function, a substitution reference)."""

    def __init__(self, known=None):
        self.values = {}
        self.ambiguous = set()
        self.known = dict(known or {})
        self._read("Makefile.am")

    def _read(self, relative):
        text = read(relative).replace("\\\n", " ")
        for line in text.splitlines():
            if line.startswith("\t"):
                continue  # a recipe
            line = line.split("#", 1)[0].rstrip()
            m = re.match(r"include\s+(?:\$\((?:top_)?srcdir\)/)?(\S+)$", line)
            if m:
                self._read(m.group(1))
                continue
            m = re.match(r"([A-Za-z0-9_]+)\s*(\+?=)\s*(.*)$", line)
            if not m:
                continue
            name, op, value = m.groups()
            if op == "+=" and name in self.values:
                self.values[name] += " " + value
            elif op == "=" and name in self.values:
                self.ambiguous.add(name)
            else:
                self.values[name] = value

    def expand(self, name):
        if name in self.known:
            return self.known[name]
        if name not in self.values:
            raise SystemExit(f"setup.py: Makefile.am and its local.mk files do not assign {name}")
        if name in self.ambiguous:
            raise SystemExit(f"setup.py: {name} is assigned with = more than once: the wheel cannot tell which holds")

        def one(m):
            return self.expand(m.group(1) or m.group(2))

        text = re.sub(r"\$\(([A-Za-z0-9_]+)\)|\$\{([A-Za-z0-9_]+)\}", one, self.values[name])
        if "$" in text:
            left = " ".join(re.findall(r"\$[({][^)}]*[)}]?", text)) or text.strip()
            raise SystemExit(f"setup.py: {name} needs make to expand {left}: list its files plainly")
        return " ".join(text.split())

    def words(self, name):
        return self.expand(name).split()


def build_lists(top_builddir="@top_builddir@"):
    """The sources and preprocessor flags of the library and the extension,
    as the Autotools build has them; configure's substitutions the flags
    name are empty here (setuptools adds the Python headers itself)."""
    make = MakeVariables(known={"top_srcdir": TOP, "srcdir": TOP, "top_builddir": top_builddir,
                                "PYTHON_CPPFLAGS": "", "PYTHON_LIMITED_API": limited_api()})
    return {
        "library": make.words("lib_libcudyn_la_SOURCES"),
        "library_cppflags": make.words("lib_libcudyn_la_CPPFLAGS"),
        "module": make.words("python_cudyn__cudyn_la_SOURCES"),
        "module_cppflags": make.words("python_cudyn__cudyn_la_CPPFLAGS"),
    }


def python_packages():
    """The packages of the module: python/cudyn and every directory below
    it with an __init__.py."""
    return sorted(p for p in find_packages(os.path.join(TOP, "python")) if p.split(".")[0] == "cudyn")


PACKAGE_DATA = ["py.typed", "*.pyi"]


def python_files():
    """The files the packages install, relative to python/: what
    python/local.mk's PYTHON_PACKAGE_FILES lists."""
    files = []
    for package in python_packages():
        folder = os.path.join("python", *package.split("."))
        for name in sorted(os.listdir(os.path.join(TOP, folder))):
            if name.endswith((".py", ".pyi")) or name == "py.typed":
                files.append(os.path.join(folder, name))
    return files


# ---------------------------------------------------------------- config.h

@contextlib.contextmanager
def quiet():
    """The compiler's complaints about a test program go nowhere, as
    configure keeps them in config.log."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def links(compiler, body, libraries=(), workdir=None):
    """Whether a C program links, as Autoconf's AC_LINK_IFELSE asks."""
    workdir = tempfile.mkdtemp(dir=workdir)
    source = os.path.join(workdir, "conftest.c")
    with open(source, "w", encoding="utf-8") as f:
        f.write(body)
    try:
        with quiet():
            objects = compiler.compile([source], output_dir=workdir)
            compiler.link_executable(objects, "conftest", output_dir=workdir, libraries=list(libraries))
        return True
    except (CompileError, LinkError):
        return False


def function_links(compiler, function, libraries=(), workdir=None):
    # the program of AC_CHECK_FUNCS and AC_SEARCH_LIBS
    return links(compiler, f"char {function}(void);\nint main(void) {{ return {function}(); }}\n", libraries, workdir)


def search_libs(compiler, workdir=None):
    """AC_SEARCH_LIBS of configure.ac: for each function, no library when
    the C library has it (glibc 2.34 and later), else the first named."""
    found = []
    for m in re.finditer(r"AC_SEARCH_LIBS\(\[(\w+)\], \[([\w ]+)\]", read("configure.ac")):
        function, candidates = m.group(1), m.group(2).split()
        if function_links(compiler, function, found, workdir):
            continue
        for lib in candidates:
            if function_links(compiler, function, found + [lib], workdir):
                found.append(lib)
                break
        else:
            raise SystemExit(f"setup.py: {function} links with none of: the C library, {', '.join(candidates)}")
    return found


def config_facts(compiler, workdir=None):
    """The macros of config.h as configure defines them, name to value."""
    package, ver, bugreport, tarname, url = ac_init()
    quoted = {"PACKAGE": tarname or package, "PACKAGE_NAME": package, "PACKAGE_TARNAME": tarname or package,
              "PACKAGE_VERSION": ver, "PACKAGE_STRING": f"{package} {ver}", "PACKAGE_BUGREPORT": bugreport,
              "PACKAGE_URL": url, "VERSION": ver}
    facts = {name: '"%s"' % value for name, value in quoted.items()}
    facts["SIZEOF_VOID_P"] = str(struct.calcsize("P"))
    for functions in ac_calls("AC_CHECK_FUNCS"):
        for function in functions:
            if function_links(compiler, function, (), workdir):
                facts["HAVE_" + re.sub(r"\W", "_", function).upper()] = "1"
    if re.search(r"^AC_USE_SYSTEM_EXTENSIONS", read("configure.ac"), re.M):
        facts.update((name, "1") for name in SYSTEM_EXTENSIONS)
    return facts


def config_header(facts):
    lines = ["/* config.h of the wheel build (setup.py): the facts configure finds */"]
    for name, value in sorted(facts.items()):
        lines += [f"#ifndef {name}", f"# define {name} {value}", "#endif"]
    return "\n".join(lines) + "\n"


def version_header():
    """include/cudyn/version.h, as configure writes it from version.h.in."""
    major, minor, patch = version().split(".")
    values = {"CUDYN_VERSION_MAJOR": major, "CUDYN_VERSION_MINOR": minor, "CUDYN_VERSION_PATCH": patch,
              "PACKAGE_VERSION": version()}
    return re.sub(r"@(\w+)@", lambda m: values[m.group(1)], read("include/cudyn/version.h.in"))


def accepted_flags(compiler, flags, workdir=None):
    """The flags the compiler takes without a warning (CUDYN_CHECK_CC_FLAG)."""
    ok = []
    for flag in flags:
        scratch = tempfile.mkdtemp(dir=workdir)
        source = os.path.join(scratch, "conftest.c")
        with open(source, "w", encoding="utf-8") as f:
            f.write("int main(void) { return 0; }\n")
        try:
            with quiet():
                compiler.compile([source], output_dir=scratch, extra_postargs=["-Werror", flag])
            ok.append(flag)
        except CompileError:
            pass
    return ok


# ---------------------------------------------------------------- the build

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    old = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = f.read()
    if old != text:  # unchanged files keep their time: nothing rebuilds for nothing
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def split_cppflags(flags):
    """-I and -D words as setuptools takes them: (include_dirs, macros)."""
    dirs = [f[2:] for f in flags if f.startswith("-I")]
    macros = []
    for f in flags:
        if f.startswith("-D"):
            name, _, value = f[2:].partition("=")
            macros.append((name, value or None))
    other = [f for f in flags if not f.startswith(("-I", "-D"))]
    if other:
        raise SystemExit(f"setup.py: preprocessor flags the wheel build does not know: {' '.join(other)}")
    return dirs, macros


class BuildCudyn(build_ext):
    """Compiles the library's sources with its own flags, then the
    extension's sources, and links both into one shared object."""

    def build_extension(self, ext):
        generated = os.path.abspath(os.path.join(self.build_temp, "generated"))
        os.makedirs(generated, exist_ok=True)
        lists = build_lists(top_builddir=generated)
        compiler = self.compiler
        write(os.path.join(generated, "config.h"), config_header(config_facts(compiler, self.build_temp)))
        write(os.path.join(generated, "include", "cudyn", "version.h"), version_header())
        symbol = "PyInit_" + ext.name.rsplit(".", 1)[-1]
        script = os.path.join(generated, "exports.map")
        write(script, "{\n  global: %s;\n  local: *;\n};\n" % symbol)

        flags = accepted_flags(compiler, CODEGEN_FLAGS, self.build_temp)
        lib_dirs, lib_macros = split_cppflags(lists["library_cppflags"])
        glibc = platform.libc_ver()[0] == "glibc"
        sources = [s for s in lists["library"] if s.endswith(".c")] + ([MANYLINUX_SOURCE] if glibc else [])
        objects = compiler.compile(sources, output_dir=self.build_temp, macros=lib_macros,
                                   include_dirs=[generated] + lib_dirs, extra_postargs=flags, depends=ext.depends,
                                   debug=self.debug)
        mod_dirs, mod_macros = split_cppflags(lists["module_cppflags"])
        if version_specific():
            mod_macros = [m for m in mod_macros if m[0] != "Py_LIMITED_API"]
        ext.include_dirs = mod_dirs
        ext.define_macros = mod_macros
        ext.extra_compile_args = flags
        ext.extra_objects = objects
        ext.libraries = [] if glibc else search_libs(compiler, self.build_temp)
        ext.extra_link_args = ["-Wl,--version-script=" + script] + (list(GLIBC_OLD_LIBRARIES) if glibc else [])
        if not self.debug:  # no DWARF in the wheel (its symbol table stays, for backtraces)
            ext.extra_link_args.append("-Wl,--strip-debug")
        super().build_extension(ext)


def load_wheel_checker():
    """packaging/check-wheel.py as a module, or None where it is missing."""
    path = os.path.join(TOP, "packaging", "check-wheel.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("cudyn_check_wheel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def proven_platform(plat, extensions):
    """The manylinux tag that packaging/check-wheel.py proves all EXTENSIONS
    meet, for the architecture of PLAT (linux_ARCH); else PLAT."""
    checker = load_wheel_checker()
    if checker is None or not extensions:
        return plat
    proven = set()
    for path in extensions:
        try:
            tag, why = checker.manylinux_tag(checker.elf_facts(path))
        except (OSError, subprocess.CalledProcessError) as e:  # no readelf: no proof
            tag, why = None, [str(e)]
        print(f"setup.py: {os.path.basename(path)}: {tag or 'no manylinux tag (' + '; '.join(why) + ')'}")
        proven.add(tag)
    if len(proven) != 1:
        return plat
    tag = proven.pop()
    return tag if tag and tag.endswith("_" + plat[len("linux_"):]) else plat


if bdist_wheel is not None:
    class ManylinuxWheel(bdist_wheel):
        """The wheel's platform tag: the manylinux tag its extension meets,
        as packaging/check-wheel.py proves it from the symbol table, in
        place of linux_ARCH (a --plat-name given on the command line is
        kept)."""

        def get_tag(self):
            impl, abi, plat = super().get_tag()
            if self.plat_name_supplied or not plat.startswith("linux_") or platform.libc_ver()[0] != "glibc":
                return impl, abi, plat
            if not hasattr(self, "proven"):  # asked for the file name and for WHEEL: proven once
                self.proven = proven_platform(plat, self.get_finalized_command("build_ext").get_outputs())
            return impl, abi, self.proven


def extension():
    lists = build_lists()
    headers = [f for f in lists["library"] + lists["module"] if f.endswith(".h")]
    headers += ["include/cudyn.h", "include/cudyn/version.h.in"]
    # relative paths: setuptools refuses absolute ones in an sdist; the
    # module's flags define Py_LIMITED_API (python/local.mk), and
    # py_limited_api names the file as the stable ABI's (_cudyn.abi3.so)
    return Extension(EXTENSION, sources=[s for s in lists["module"] if s.endswith(".c")], depends=headers,
                     py_limited_api=not version_specific())


def main():
    os.chdir(TOP)
    setup(
        version=version(),
        packages=python_packages(),
        package_dir={"": "python"},
        package_data={"": PACKAGE_DATA},
        ext_modules=[extension()],
        cmdclass=dict({"build_ext": BuildCudyn}, **({"bdist_wheel": ManylinuxWheel} if bdist_wheel else {})),
        zip_safe=False,
        # setuptools' build/ folder in the tree would shadow the `build`
        # module for `python3 -m build` run there next (the version-specific
        # build's objects, compiled otherwise, go apart); the wheel is the
        # floor's abi3 one (cp311-abi3-...) or the version-specific one
        options={"build": {"build_base": "_build_py" + ("/version-specific" if version_specific() else "")},
                 "bdist_wheel": {} if version_specific() else {"py_limited_api": abi3_tag()}},
    )


if __name__ == "__main__":
    main()
