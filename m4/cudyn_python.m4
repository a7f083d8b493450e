# CUDYN_PYTHON
# The one Python 3 interpreter of the build: the Python module cudyn is
# built, installed and tested for it, and `make bench-peers` runs with it.
#
#   PYTHON=/path/to/python3      this interpreter, nothing else
#   --with-python=/path/python3  the same
#   --with-python                a module is required: fail without headers
#   (default)                    a module when an interpreter with headers is found
#   --without-python             no module (PYTHON still serves bench-peers)
#   --with-python-sitedir=DIR    install the module there instead
#
# Without a choice, the candidates are the active virtual environment's
# python3 ($VIRTUAL_ENV/bin/python3), every python3 on PATH, then
# /usr/bin/python3, and the first that fits wins:
#   1. the active virtual environment's, when it has headers (Python.h):
#      what the user activated is what they mean;
#   2. else the first with headers and numpy and pytest, so that make check
#      runs the module's tests (a machine may have a python3 on PATH, a
#      pyenv, without them beside a system one that has them);
#   3. else the first with headers (the module's tests then skip);
#   4. else (no module) the first found, for bench-peers.
# configure says which it took and why it passed each earlier one over;
# docs/python.md states the same rule.
#
# The module is written for Python's limited C API (the stable ABI): one
# build loads in the floor's CPython and every later one.  The floor is
# pyproject.toml's requires-python (">=3.11": the buffer protocol joined
# the limited API in 3.11), read from there: an interpreter below it is
# passed over, and the module is compiled with Py_LIMITED_API set to it.
#
# Substitutes PYTHON, PYTHON_CPPFLAGS, PYTHON_LIMITED_API (the floor as
# Py_LIMITED_API's hex, 0x030B0000), PYTHON_EXT_SUFFIX (the extension
# module's file name suffix: .abi3.so, the stable ABI's, which every
# CPython of the floor and later loads; checked against the interpreter's
# importlib.machinery.EXTENSION_SUFFIXES) and PYTHON_SITEDIR (in terms of
# ${prefix}, so `make install prefix=...` and distcheck move it; for a
# virtual environment's interpreter and no --prefix, the environment's own
# site-packages, so that `make install` puts the module where that
# interpreter imports it); conditional HAVE_PYTHON_MODULE.
AC_DEFUN([CUDYN_PYTHON], [
AC_ARG_VAR([PYTHON], [the Python 3 interpreter the Python module is built for and make bench-peers runs with])
AC_ARG_WITH([python],
  [AS_HELP_STRING([--with-python@<:@=PYTHON@:>@],
    [build the Python module cudyn for PYTHON (default: a python3 whose headers are installed, when found; --without-python skips it)])],
  [], [with_python=check])
AC_ARG_WITH([python-sitedir],
  [AS_HELP_STRING([--with-python-sitedir=DIR],
    [install the Python module under DIR (default: the interpreter's site-packages for the prefix)])],
  [], [with_python_sitedir=])

AS_CASE([$with_python], [yes|no|check], [], [PYTHON=$with_python; with_python=yes])

dnl the floor: pyproject.toml's requires-python, as 3.11 and as Py_LIMITED_API's hex
AC_MSG_CHECKING([for the Python floor (pyproject.toml's requires-python)])
cudyn_python_floor=`sed -n 's/^requires-python = ">=\(3\.[[0-9]]*\)"$/\1/p' "$srcdir/pyproject.toml"`
AS_IF([test -z "$cudyn_python_floor"],
  [AC_MSG_ERROR([no requires-python = ">=3.N" line in $srcdir/pyproject.toml])])
PYTHON_LIMITED_API=`printf '0x%02X%02X0000' ${cudyn_python_floor%%.*} ${cudyn_python_floor#*.}`
AC_MSG_RESULT([$cudyn_python_floor (the module's limited API: Py_LIMITED_API=$PYTHON_LIMITED_API)])

dnl cudyn_python_probe PY: "VERSION INCLUDE_DIR HAS_HEADERS HAS_TEST_MODULES" or nothing
cudyn_python_probe() {
  "$[]1" -c 'import sys, sysconfig, os.path
if sys.version_info < tuple(int(p) for p in sys.argv[[1]].split(".")): sys.exit(1)
inc = sysconfig.get_paths()[["include"]]
def has(m):
    try:
        __import__(m)
        return "yes"
    except Exception:
        return "no"
print("%d.%d" % sys.version_info[[:2]], inc,
      "yes" if os.path.isfile(os.path.join(inc, "Python.h")) else "no",
      "yes" if has("numpy") == has("pytest") == "yes" else "no")' "$cudyn_python_floor" 2>/dev/null
}

AC_MSG_CHECKING([for a Python with its headers])
cudyn_python_candidates= cudyn_python_venv=
AS_IF([test -n "$PYTHON"], [cudyn_python_candidates=$PYTHON], [
  AS_IF([test -n "$VIRTUAL_ENV" && test -x "$VIRTUAL_ENV/bin/python3"], [
    cudyn_python_venv=$VIRTUAL_ENV/bin/python3
    cudyn_python_candidates=$cudyn_python_venv])
  cudyn_save_IFS=$IFS; IFS=$PATH_SEPARATOR
  for cudyn_dir in $PATH; do
    IFS=$cudyn_save_IFS
    test -n "$cudyn_dir" || cudyn_dir=.
    AS_IF([test -x "$cudyn_dir/python3"], [cudyn_python_candidates="$cudyn_python_candidates $cudyn_dir/python3"])
  done
  IFS=$cudyn_save_IFS
  cudyn_python_candidates="$cudyn_python_candidates /usr/bin/python3"
])
dnl each candidate passed over, one "PATH: why" a line
cudyn_python_any= cudyn_python_headers= cudyn_python_best= cudyn_python_passed= cudyn_python_seen=
for cudyn_py in $cudyn_python_candidates; do
  AS_CASE([" $cudyn_python_seen "], [*" $cudyn_py "*], [continue])
  cudyn_python_seen="$cudyn_python_seen $cudyn_py"
  cudyn_facts=`cudyn_python_probe "$cudyn_py"`
  AS_IF([test -z "$cudyn_facts"], [
    cudyn_python_passed="$cudyn_python_passed
$cudyn_py: not a Python $cudyn_python_floor or later that runs"
    continue])
  test -n "$cudyn_python_any" || cudyn_python_any="$cudyn_py $cudyn_facts"
  set dummy $cudyn_facts
  AS_CASE([$cudyn_facts], [*" yes "*], [
    test -n "$cudyn_python_headers" || cudyn_python_headers="$cudyn_py $cudyn_facts"
    AS_IF([test "x$cudyn_py" = "x$cudyn_python_venv"], [cudyn_python_best="$cudyn_py $cudyn_facts"; break])
    AS_CASE([$cudyn_facts], [*" yes yes"], [cudyn_python_best="$cudyn_py $cudyn_facts"; break])
    cudyn_python_passed="$cudyn_python_passed
$cudyn_py: Python $[]2 without numpy or pytest (make check would skip the module's tests)"
  ], [
    cudyn_python_passed="$cudyn_python_passed
$cudyn_py: Python $[]2 without its headers (no Python.h in $[]3; Debian: python3-dev)"
  ])
done
cudyn_python_choice=$cudyn_python_best
test -n "$cudyn_python_choice" || cudyn_python_choice=$cudyn_python_headers
test -n "$cudyn_python_choice" || cudyn_python_choice=$cudyn_python_any
dnl the choice's words: interpreter version include-dir headers test-modules
set dummy $cudyn_python_choice
have_python_module=no
PYTHON= PYTHON_CPPFLAGS= PYTHON_EXT_SUFFIX= PYTHON_SITEDIR=
AS_IF([test $[]# = 6], [
  PYTHON=$[]2
  cudyn_python_version=$[]3
  AS_IF([test "x$[]5" = xyes && test "x$with_python" != xno], [have_python_module=yes])
  AS_IF([test "x$[]5" != xyes], [cudyn_python_note="; no Python.h in $[]4: no module"],
        [test "x$with_python" = xno], [cudyn_python_note="; --without-python: no module"],
        [test "x$[]6" != xyes], [cudyn_python_note="; no numpy or pytest: the module's tests skip"],
        [cudyn_python_note=])
  AS_IF([test $have_python_module = yes], [PYTHON_CPPFLAGS="-I$[]4"])
  AS_IF([test "x$PYTHON" = "x$cudyn_python_venv"],
    [cudyn_python_note=", the active virtual environment's$cudyn_python_note"])
  AC_MSG_RESULT([$PYTHON ($cudyn_python_version$cudyn_python_note)])
  dnl why the ones before it were not taken
  echo "$cudyn_python_passed" | while IFS= read -r cudyn_line; do
    AS_CASE([$cudyn_line], ["$PYTHON: "*], [break], [""], [], [AC_MSG_NOTICE([passed over $cudyn_line])])
  done
], [
  AC_MSG_RESULT([none (no Python $cudyn_python_floor or later)])
])
AS_IF([test "x$with_python" = xyes && test $have_python_module = no],
  [AC_MSG_ERROR([--with-python: no Python $cudyn_python_floor or later with its headers (Python.h) among: $cudyn_python_candidates (Debian: apt-get install python3-dev)])])

dnl the module is a shared object: a static-only build has no libcudyn.so to link it to
AS_IF([test $have_python_module = yes && test "x$enable_shared" = xno], [
  have_python_module=no
  AS_IF([test "x$with_python" = xyes], [AC_MSG_ERROR([--with-python needs shared libraries (not --disable-shared)])])
  AC_MSG_NOTICE([--disable-shared: the Python module is not built])
])

AS_IF([test $have_python_module = yes], [
  AC_MSG_CHECKING([for the stable ABI's extension module suffix])
  PYTHON_EXT_SUFFIX=`"$PYTHON" -c 'import importlib.machinery as m; print(".abi3.so" if ".abi3.so" in m.EXTENSION_SUFFIXES else "")'`
  AS_IF([test -z "$PYTHON_EXT_SUFFIX"],
    [AC_MSG_ERROR([$PYTHON loads no stable-ABI module (.abi3.so is not among its importlib.machinery.EXTENSION_SUFFIXES)])])
  AC_MSG_RESULT([$PYTHON_EXT_SUFFIX])
  AC_MSG_CHECKING([where the Python module is installed])
  AS_IF([test -n "$with_python_sitedir"], [PYTHON_SITEDIR=$with_python_sitedir], [
    cudyn_prefix=$prefix
    test "x$cudyn_prefix" = xNONE && cudyn_prefix=$ac_default_prefix
    dnl Debian's interpreters look in /usr/lib/python3/dist-packages (the
    dnl distribution's packages, scheme deb_system) and PREFIX/lib/pythonX.Y/
    dnl dist-packages for other prefixes (/usr/local); elsewhere the
    dnl interpreter's posix_prefix scheme says.  The prefix is written as
    dnl the make variable, so that it follows make's prefix.
    dnl A virtual environment's interpreter and no --prefix: the
    dnl environment's own site-packages.
    cudyn_prefix_given=yes
    test "x$prefix" = xNONE && cudyn_prefix_given=no
    PYTHON_SITEDIR=`"$PYTHON" -c 'import sys, sysconfig
schemes = sysconfig.get_scheme_names()
v = {"base": "@PREFIX@", "platbase": "@PREFIX@"}
venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
if venv and sys.argv[[2]] == "no":
    path = sysconfig.get_path("platlib")
elif venv:
    path = sysconfig.get_path("platlib", "venv" if "venv" in schemes else "posix_prefix", vars=v)
elif "deb_system" in schemes:
    if sys.argv[[1]] == "/usr":
        path = sysconfig.get_path("platlib", "deb_system", vars=v)
    else:
        path = "@PREFIX@/lib/python%d.%d/dist-packages" % sys.version_info[[:2]]
else:
    path = sysconfig.get_path("platlib", "posix_prefix", vars=v)
print(path.replace("@PREFIX@", "${prefix}"))' "$cudyn_prefix" "$cudyn_prefix_given"`
  ])
  AC_MSG_RESULT([$PYTHON_SITEDIR])
  AS_IF([test -z "$PYTHON_SITEDIR" || test -z "$PYTHON_EXT_SUFFIX"],
    [AC_MSG_ERROR([$PYTHON did not say where its modules go (sysconfig)])])
])
AC_SUBST([PYTHON])
AC_SUBST([PYTHON_CPPFLAGS])
AC_SUBST([PYTHON_LIMITED_API])
AC_SUBST([PYTHON_EXT_SUFFIX])
AC_SUBST([PYTHON_SITEDIR])
AM_CONDITIONAL([HAVE_PYTHON_MODULE], [test $have_python_module = yes])
AC_SUBST([HAVE_PYTHON_MODULE], [$have_python_module])
])
