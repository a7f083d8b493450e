# ---------------------------------------------------------------- Python
# The Python module `cudyn` (included from Makefile.am; paths are from the
# top of the tree): the C extension cudyn._cudyn, written over cudyn.h
# alone, and the pure-Python package python/cudyn/*.py.  configure's
# CUDYN_PYTHON (m4/cudyn_python.m4) chose the interpreter (PYTHON) and
# whether its headers allow a module (HAVE_PYTHON_MODULE).
#
# The extension is a libtool module written for Python's limited C API
# (Py_LIMITED_API: the stable ABI of the floor configure read from
# pyproject.toml's requires-python), so it is named as the stable ABI's
# extensions are (-shrext $(PYTHON_EXT_SUFFIX): _cudyn.abi3.so) and loads
# in that CPython and every later one; it is linked to libcudyn.so and
# needs Python.h only (no numpy headers: arrays come through the buffer
# protocol and __array_interface__).  The wheel (setup.py) compiles the
# same module with the same Py_LIMITED_API.
# Everything lands in $(PYTHON_SITEDIR)/cudyn; the libtool archive
# (_cudyn.la) is not left there.
#
# How make check finds the module (tests/check-python.sh): the package is
# staged in $(builddir)/python/staged/cudyn: a symbolic link to each file
# of PYTHON_PACKAGE_FILES, in its subpackage's folder, and one to the
# built extension in .libs.
# PYTHONPATH=$(builddir)/python/staged then imports the sources being
# edited and the extension just built, from a VPATH build as from one in
# the source tree, and LD_LIBRARY_PATH names lib/.libs so that the
# extension loads this build's libcudyn.so.1 (the test checks it did).
# The stage is remade by every make check (check_DATA), so a .py file
# added to python/cudyn or python/cudyn/pycuda needs no change here.

# The wheel (pip install ., setup.py) compiles the files of
# python_cudyn__cudyn_la_SOURCES and lib_libcudyn_la_SOURCES into one
# extension, reading the lists from here: a file added to a list is in
# both builds.

# one file per concern, in their order bottom to top (python/README.md;
# tests/check-layers.sh checks it); python/src/cudyn_py.h is what they
# share, dlpack.h DLPack's ABI
PYTHON_MODULE_SOURCES = python/src/cudyn_py.h python/src/dlpack.h python/src/errors.c python/src/util.c \
	python/src/format.c python/src/memory.c python/src/streams.c python/src/textures.c python/src/export.c \
	python/src/array.c python/src/interop.c python/src/nccl_functions.c python/src/nccl.c python/src/host_args.c python/src/pack.c \
	python/src/launch.c python/src/prepared.c python/src/function.c python/src/module.c python/src/link.c \
	python/src/expressions.c python/src/functions.c python/src/init.c

# The pure-Python files, whatever is in the source tree (GNU make): every
# package, python/cudyn and each directory below it that has an
# __init__.py (three levels deep), with its .py files, type stubs (.pyi)
# and py.typed marker.  setup.py puts the same files in the wheel by the
# same rule, at any depth; tests/check-wheel-lists.sh compares the two.
PYTHON_PACKAGE_DIRS = $(patsubst %/__init__.py,%,$(wildcard $(srcdir)/python/cudyn/__init__.py \
	$(srcdir)/python/cudyn/*/__init__.py $(srcdir)/python/cudyn/*/*/__init__.py))
PYTHON_PACKAGE_FILES = $(sort $(wildcard $(foreach d,$(PYTHON_PACKAGE_DIRS),$(d)/*.py $(d)/*.pyi $(d)/py.typed)))
PYTHON_TEST_FILES = $(sort $(wildcard $(srcdir)/python/tests/*.py $(srcdir)/python/tests/*.cu \
	$(srcdir)/python/tests/*.txt $(srcdir)/python/tests/*.ini))
PYTHON_EXAMPLE_FILES = $(sort $(wildcard $(srcdir)/examples/python/*.py))
PYTHON_LAYER_EXAMPLE_FILES = $(sort $(wildcard $(srcdir)/examples/python/pycuda/*.py))
EXTRA_DIST += $(PYTHON_MODULE_SOURCES) $(PYTHON_PACKAGE_FILES) $(PYTHON_TEST_FILES) $(PYTHON_EXAMPLE_FILES) \
	$(PYTHON_LAYER_EXAMPLE_FILES) python/local.mk python/README.md docs/python.md

if HAVE_PYTHON_MODULE
cudynpythondir = $(PYTHON_SITEDIR)/cudyn
cudynpython_LTLIBRARIES = python/cudyn/_cudyn.la
python_cudyn__cudyn_la_SOURCES = $(PYTHON_MODULE_SOURCES)
# cudyn.h (with the generated cudyn/version.h) and Python.h only (not lib/,
# which AM_CPPFLAGS adds for the library)
python_cudyn__cudyn_la_CPPFLAGS = -I$(top_builddir)/include -I$(top_srcdir)/include $(PYTHON_CPPFLAGS) \
	-DPy_LIMITED_API=$(PYTHON_LIMITED_API)
python_cudyn__cudyn_la_CFLAGS = $(AM_CFLAGS) $(CUDYN_VISIBILITY_CFLAGS)
# the symbols of libpython come from the interpreter that loads the module
python_cudyn__cudyn_la_LDFLAGS = -module -shared -avoid-version -shrext $(PYTHON_EXT_SUFFIX)
python_cudyn__cudyn_la_LIBADD = lib/libcudyn.la

# the examples, beside the C ones
pythonexamplesdir = $(examplesdir)/python
pythonexamples_DATA = $(PYTHON_EXAMPLE_FILES)
pycudaexamplesdir = $(pythonexamplesdir)/pycuda
pycudaexamples_DATA = $(PYTHON_LAYER_EXAMPLE_FILES)


# The package's files are linked, the extension copied: `make install`
# (which tests run into a stage while others import the module) relinks it
# for its installed place at its build-tree path, moving the built one
# aside meanwhile, and a test must not load it then.
check_DATA = python-staged
python-staged: python/cudyn/_cudyn.la
	@rm -rf python/staged && $(MKDIR_P) python/staged/cudyn && \
	for f in $(PYTHON_PACKAGE_FILES); do \
	    rel=$${f#$(srcdir)/python/cudyn/}; \
	    case $$f in /*) ;; *) f=`pwd`/$$f ;; esac; \
	    $(MKDIR_P) "python/staged/cudyn/`dirname $$rel`" && ln -s "$$f" "python/staged/cudyn/$$rel" || exit 1; \
	done && \
	cp -p '$(abs_builddir)/python/cudyn/.libs/_cudyn$(PYTHON_EXT_SUFFIX)' python/staged/cudyn/

# Installed as the files are in the source tree, subpackages in their
# folders, with the package's metadata beside them (below); Makefile.am's
# install-data-local and uninstall-local call these.
python-install-package: python/METADATA
	@set -e; for f in $(PYTHON_PACKAGE_FILES); do \
	    rel=$${f#$(srcdir)/python/cudyn/}; \
	    $(MKDIR_P) "$(DESTDIR)$(cudynpythondir)/`dirname $$rel`"; \
	    echo " $(INSTALL_DATA) $$f '$(DESTDIR)$(cudynpythondir)/$$rel'"; \
	    $(INSTALL_DATA) "$$f" "$(DESTDIR)$(cudynpythondir)/$$rel"; \
	done
	$(MKDIR_P) '$(DESTDIR)$(PYTHON_SITEDIR)/$(PYTHON_DIST_INFO)'
	$(INSTALL_DATA) python/METADATA '$(DESTDIR)$(PYTHON_SITEDIR)/$(PYTHON_DIST_INFO)/METADATA'
	echo '$(PYTHON_INSTALLER)' > '$(DESTDIR)$(PYTHON_SITEDIR)/$(PYTHON_DIST_INFO)/INSTALLER'
# each file and its bytecode, then the subpackages' folders, deepest first
# (Makefile.am's uninstall-hook removes the extension and cudyn/ itself)
python-uninstall-package:
	@for f in $(PYTHON_PACKAGE_FILES); do \
	    rel=$${f#$(srcdir)/python/cudyn/}; \
	    dir=`dirname "$$rel"`; base=`basename "$$rel" .py`; \
	    rm -f "$(DESTDIR)$(cudynpythondir)/$$rel" "$(DESTDIR)$(cudynpythondir)/$$dir/__pycache__/$$base".*.pyc; \
	done
	@for d in $(PYTHON_PACKAGE_DIRS); do \
	    rel=$${d#$(srcdir)/python/cudyn}; test -z "$$rel" || echo "$${rel#/}"; \
	done | sort -r | while read -r rel; do \
	    rmdir "$(DESTDIR)$(cudynpythondir)/$$rel/__pycache__" "$(DESTDIR)$(cudynpythondir)/$$rel" 2>/dev/null; \
	done; :
	rm -f '$(DESTDIR)$(PYTHON_SITEDIR)/$(PYTHON_DIST_INFO)/METADATA' \
	    '$(DESTDIR)$(PYTHON_SITEDIR)/$(PYTHON_DIST_INFO)/INSTALLER'
	-rmdir '$(DESTDIR)$(PYTHON_SITEDIR)/$(PYTHON_DIST_INFO)' 2>/dev/null
else
python-install-package python-uninstall-package:
endif
.PHONY: python-staged python-install-package python-uninstall-package

# The package's metadata, as a wheel's (the core metadata of PEP 566 in a
# .dist-info folder, PEP 627), so that importlib.metadata.version("cudyn")
# and `pip show cudyn` find this install too: pyproject.toml's name,
# summary, licence and Python versions, AC_INIT's version.  INSTALLER names
# what installed it (debian/rules says debian); with no RECORD, pip
# leaves the files alone (`make uninstall` removes them).
PYTHON_DIST_INFO = cudyn-$(VERSION).dist-info
PYTHON_INSTALLER = make
python/METADATA: $(srcdir)/pyproject.toml Makefile
	$(AM_V_GEN)$(MKDIR_P) python && project() { sed -n '/^\[project\]/,/^\[/p' $(srcdir)/pyproject.toml; } && \
	{ echo 'Metadata-Version: 2.1'; \
	  project | sed -n 's/^name = "\(.*\)"$$/Name: \1/p'; \
	  echo 'Version: $(VERSION)'; \
	  project | sed -n 's/^description = "\(.*\)"$$/Summary: \1/p'; \
	  project | sed -n 's/^license = {text = "\(.*\)"}$$/License: \1/p'; \
	  project | sed -n 's/^requires-python = "\(.*\)"$$/Requires-Python: \1/p'; \
	} > $@.tmp && mv $@.tmp $@
CLEANFILES += python/METADATA

# the wheel's lists and facts against make's (setup.py reads them from here)
TESTS += tests/check-wheel-lists.sh
EXTRA_DIST += tests/check-wheel-lists.sh
# the type stubs (python/cudyn/**/*.pyi) against the staged module, with
# mypy's stubtest, and mypy --strict on examples/python with them
TESTS += tests/check-stubs.sh
EXTRA_DIST += tests/check-stubs.sh
# the wheel's platform and Python tags: check-wheel.py's reading of the
# symbol table, against extensions built to meet manylinux_2_17 and the
# stable ABI and to miss them, and the module's own imports against the
# stable ABI
TESTS += tests/check-wheel-tag.sh
EXTRA_DIST += tests/check-wheel-tag.sh
# the package index, Debian and RPM say the same of the package
TESTS += tests/check-package-metadata.sh
EXTRA_DIST += tests/check-package-metadata.sh packaging/check-metadata.py
# python/manylinux_glibc.c: the wheel's only (setup.py compiles it)
EXTRA_DIST += pyproject.toml setup.py MANIFEST.in packaging/check-wheel.py packaging/stable-abi.txt packaging/pypi.md \
	python/manylinux_glibc.c

# the libtool archive is of no use to the interpreter: Makefile.am's
# install-data-hook removes it (make uninstall removes the extension by its
# name: its uninstall-hook)

# The module's tests that start threads, which CI runs under
# ThreadSanitizer (.ci/run's tsan-py job): configure
# --enable-sanitizer=thread instruments the library and the module, not the
# interpreter; tests/check-python.sh preloads libtsan with the suppressions
# CPython needs (tests/tsan-python.supp).  make check-python-concurrency
# refuses to run while a python/tests file that starts threads is missing.
PYTHON_CONCURRENCY_TESTS = test_threads.py test_stress.py test_device.py test_affinity.py test_reliability.py test_nccl.py test_pycuda.py test_pools.py test_properties.py test_link.py
check-python-concurrency:
	@missing=; for f in $(srcdir)/python/tests/test_*.py; do \
	    grep -q 'Thread(' "$$f" || continue; t=`basename "$$f"`; \
	    case " $(PYTHON_CONCURRENCY_TESTS) " in *" $$t "*) ;; *) missing="$$missing $$t" ;; esac; \
	done; \
	test -z "$$missing" || { echo "check-python-concurrency: add$$missing to PYTHON_CONCURRENCY_TESTS"; exit 1; }
	CUDYN_PYTEST_FILES='$(PYTHON_CONCURRENCY_TESTS)' $(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/check-python.sh
.PHONY: check-python-concurrency
