# ---------------------------------------------------------------- Python
# The Python module `cudyn` (included from Makefile.am; paths are from the
# top of the tree): the C extension cudyn._cudyn, written over cudyn.h
# alone, and the pure-Python package python/cudyn/*.py.  configure's
# CUDYN_PYTHON (m4/cudyn_python.m4) chose the interpreter (PYTHON) and
# whether its headers allow a module (HAVE_PYTHON_MODULE).
#
# The extension is a libtool module named as the interpreter names
# extensions (-shrext $(PYTHON_EXT_SUFFIX), e.g. _cudyn.cpython-311-x86_64-
# linux-gnu.so), linked to libcudyn.so; it needs Python.h only (no numpy
# headers: arrays come through the buffer protocol and __array_interface__).
# Everything lands in $(PYTHON_SITEDIR)/cudyn; the libtool archive
# (_cudyn.la) is not left there.
#
# How make check finds the module (tests/check-python.sh): the package is
# staged in $(builddir)/python/staged/cudyn: a symbolic link to each
# $(srcdir)/python/cudyn/*.py and one to the built extension in .libs.
# PYTHONPATH=$(builddir)/python/staged then imports the sources being
# edited and the extension just built, from a VPATH build as from one in
# the source tree, and LD_LIBRARY_PATH names lib/.libs so that the
# extension loads this build's libcudyn.so.1 (the test checks it did).
# The stage is remade by every make check (check_DATA), so a .py file
# added to python/cudyn needs no change here.

# one file per concern, in their order bottom to top (python/README.md;
# tests/check-layers.sh checks it); python/src/cudyn_py.h is what they
# share, dlpack.h DLPack's ABI
PYTHON_MODULE_SOURCES = python/src/cudyn_py.h python/src/dlpack.h python/src/errors.c python/src/util.c \
	python/src/format.c python/src/memory.c python/src/streams.c python/src/textures.c python/src/export.c \
	python/src/array.c python/src/interop.c python/src/host_args.c python/src/pack.c python/src/launch.c \
	python/src/prepared.c python/src/function.c python/src/module.c python/src/expressions.c \
	python/src/functions.c python/src/init.c

# the pure-Python files: whatever is in the source tree (GNU make)
PYTHON_PACKAGE_FILES = $(sort $(wildcard $(srcdir)/python/cudyn/*.py))
PYTHON_TEST_FILES = $(sort $(wildcard $(srcdir)/python/tests/*.py $(srcdir)/python/tests/*.cu \
	$(srcdir)/python/tests/*.txt $(srcdir)/python/tests/*.ini))
PYTHON_EXAMPLE_FILES = $(sort $(wildcard $(srcdir)/examples/python/*.py))
EXTRA_DIST += $(PYTHON_MODULE_SOURCES) $(PYTHON_PACKAGE_FILES) $(PYTHON_TEST_FILES) $(PYTHON_EXAMPLE_FILES) \
	python/local.mk python/README.md docs/python.md

if HAVE_PYTHON_MODULE
cudynpythondir = $(PYTHON_SITEDIR)/cudyn
cudynpython_LTLIBRARIES = python/cudyn/_cudyn.la
python_cudyn__cudyn_la_SOURCES = $(PYTHON_MODULE_SOURCES)
# cudyn.h (with the generated cudyn/version.h) and Python.h only (not lib/,
# which AM_CPPFLAGS adds for the library)
python_cudyn__cudyn_la_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include $(PYTHON_CPPFLAGS)
python_cudyn__cudyn_la_CFLAGS = $(AM_CFLAGS) $(CUDYN_VISIBILITY_CFLAGS)
# the symbols of libpython come from the interpreter that loads the module
python_cudyn__cudyn_la_LDFLAGS = -module -shared -avoid-version -shrext $(PYTHON_EXT_SUFFIX)
python_cudyn__cudyn_la_LIBADD = lib/libcudyn.la
cudynpython_DATA = $(PYTHON_PACKAGE_FILES)

# the examples, beside the C ones
pythonexamplesdir = $(examplesdir)/python
pythonexamples_DATA = $(PYTHON_EXAMPLE_FILES)


check_DATA = python-staged
python-staged: python/cudyn/_cudyn.la
	@rm -rf python/staged && $(MKDIR_P) python/staged/cudyn && \
	for f in $(PYTHON_PACKAGE_FILES); do \
	    case $$f in /*) ;; *) f=`pwd`/$$f ;; esac; \
	    ln -s "$$f" python/staged/cudyn/ || exit 1; \
	done && \
	ln -s '$(abs_builddir)/python/cudyn/.libs/_cudyn$(PYTHON_EXT_SUFFIX)' python/staged/cudyn/
endif
.PHONY: python-staged

# the libtool archive is of no use to the interpreter: Makefile.am's
# install-data-hook removes it (make uninstall removes the extension by its
# name: its uninstall-hook)
