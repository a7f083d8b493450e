# lib/local.mk - the library, its installed headers, pkg-config and CMake files
# (included from Makefile.am; paths are from the top of the tree)
lib_LTLIBRARIES = lib/libcudyn.la
# One list per wing of lib/, bottom to top (lib/README.md): a wing's files
# call only into their own wing and the wings listed before it, which
# tests/check-layers.sh checks.  The unit tests that link a part of the
# library without the rest reuse the named parts.
# base: util.c (the environment, debug output, the text buffer) is pure
LIB_BASE_UTIL = lib/util.c
LIB_BASE_SOURCES = lib/internal.h lib/cuda_abi.h lib/driver_symbols.h lib/nvrtc_symbols.h lib/nccl_abi.h \
	lib/nccl_symbols.h lib/nvjitlink_abi.h lib/nvjitlink_symbols.h lib/hints.h \
	lib/cuda_results.h lib/nvrtc_results.h lib/dispatch.c lib/driver_log.c lib/error.c lib/status.c $(LIB_BASE_UTIL)
# loader/: compat.c (what a forward-compat library is, the decision about it) links alone
LIB_LOADER_COMPAT = lib/loader/compat.c lib/loader/files.c
LIB_LOADER_SOURCES = lib/loader/loader.h lib/loader/sonames.h $(LIB_LOADER_COMPAT) lib/loader/static_program.c lib/loader/dlopen_note.c lib/loader/load_driver.c lib/loader/load_nvrtc.c lib/loader/loader_info.c lib/loader/nvml.c lib/loader/versions.c \
	lib/loader/library.c lib/loader/nccl.c lib/loader/mpi.c lib/loader/python_sites.c lib/loader/toolkit_roots.c lib/loader/toolkit.c lib/loader/nvjitlink.c
LIB_API_SOURCES = lib/api/api.h lib/api/context.c lib/api/interop.c lib/api/device.c lib/api/device_attributes.c \
	lib/api/memory.c lib/api/stream.c lib/api/array.h lib/api/array.c lib/api/copy.c lib/api/texture.c \
	lib/api/graph.c lib/api/mempool.c lib/api/managed.c lib/api/ipc_exports.c lib/api/ipc.c lib/api/vmm.c \
	lib/api/local_rank.c
# compile/: its parts that are pure functions of their input (disjoint:
# a test lists each part it needs)
LIB_COMPILE_SHA256 = lib/compile/sha256.h lib/compile/sha256.c lib/compile/little_endian.h
LIB_COMPILE_OPTIONS = lib/compile/options.h lib/compile/options.c
LIB_COMPILE_TARGET = lib/compile/target.h lib/compile/target.c
LIB_COMPILE_INCLUDES = lib/compile/includes.h lib/compile/includes.c lib/compile/libc_headers.h \
	lib/compile/libc_headers.c
LIB_COMPILE_CACHE_FORMAT = lib/compile/cache.h lib/compile/cache_entry.c lib/compile/names.h lib/compile/names.c
LIB_COMPILE_IMAGE_FORMAT = lib/compile/image.h lib/compile/image_format.c lib/compile/cubin.h lib/compile/cubin.c
LIB_COMPILE_PTX_INTERFACE = lib/compile/ptx_interface.h lib/compile/ptx_interface.c
LIB_COMPILE_SOURCES = $(LIB_COMPILE_SHA256) $(LIB_COMPILE_OPTIONS) $(LIB_COMPILE_TARGET) $(LIB_COMPILE_INCLUDES) \
	$(LIB_COMPILE_CACHE_FORMAT) $(LIB_COMPILE_IMAGE_FORMAT) $(LIB_COMPILE_PTX_INTERFACE) lib/compile/program.h \
	lib/compile/compile.c lib/compile/inflight.h lib/compile/inflight.c lib/compile/cache.c lib/compile/image.c \
	lib/compile/link.c
# module/: the launch-format parser is a pure function
LIB_MODULE_FORMAT = lib/module/args.h lib/module/format_codes.h lib/module/format.c
LIB_MODULE_SOURCES = lib/module/module.h $(LIB_MODULE_FORMAT) lib/module/module.c lib/module/module_source.c \
	lib/module/kernel_params.h lib/module/kernel_params.c lib/module/launch.c lib/module/launch_ex.c \
	lib/module/args.c
# expr/: parsing the user's text and writing the kernel's source are pure
LIB_EXPR_TEXT = lib/expr/expr.h lib/expr/params_decl.c lib/expr/expr_scan.c lib/expr/expr_shape.c \
	lib/expr/expr_source.c
LIB_EXPR_SOURCES = $(LIB_EXPR_TEXT) lib/expr/expr_args.c lib/expr/expr_kernels.c lib/expr/elementwise.c \
	lib/expr/reduction.c
# nccl/: the collectives, over the NCCL the loader found
LIB_NCCL_SOURCES = lib/nccl/nccl.h lib/nccl/comm.c lib/nccl/group.c lib/nccl/init.c lib/nccl/collectives.c
lib_libcudyn_la_SOURCES = $(LIB_BASE_SOURCES) $(LIB_LOADER_SOURCES) $(LIB_API_SOURCES) $(LIB_COMPILE_SOURCES) \
	$(LIB_MODULE_SOURCES) $(LIB_EXPR_SOURCES) $(LIB_NCCL_SOURCES)
lib_libcudyn_la_CPPFLAGS = $(AM_CPPFLAGS) -DCUDYN_BUILDING_LIBRARY
lib_libcudyn_la_CFLAGS = $(AM_CFLAGS) $(CUDYN_VISIBILITY_CFLAGS)
lib_libcudyn_la_LDFLAGS = -version-info $(CUDYN_LT_VERSION) -no-undefined $(CUDYN_LIB_LDFLAGS)
EXTRA_lib_libcudyn_la_DEPENDENCIES = $(top_srcdir)/lib/libcudyn.map

include_HEADERS = include/cudyn.h include/cudyn.hpp
cudynincludedir = $(includedir)/cudyn
cudyninclude_HEADERS = include/cudyn/driver.h
nodist_cudyninclude_HEADERS = include/cudyn/version.h

pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = cudyn.pc

# The CMake package (find_package(cudyn)): written by make, where libdir
# and includedir are known; each is found from the config file's own
# directory when it lies under the prefix (a moved or DESTDIR-staged tree
# works), else from its configured path.
cmakedir = $(libdir)/cmake/cudyn
cmake_DATA = cmake/cudynConfig.cmake cmake/cudynConfigVersion.cmake
CMAKE_SUBST = sed -e 's|@VERSION[@]|$(VERSION)|g' -e 's|@CUDYN_VERSION_MAJOR[@]|$(CUDYN_VERSION_MAJOR)|g' \
	-e 's|@CUDYN_VERSION_MINOR[@]|$(CUDYN_VERSION_MINOR)|g' -e 's|@CUDYN_SO_MAJOR[@]|$(CUDYN_SO_MAJOR)|g' \
	-e 's|@CUDYN_SIZEOF_VOID_P[@]|$(CUDYN_SIZEOF_VOID_P)|g' -e 's|@includedir[@]|$(includedir)|g' \
	-e 's|@libdir[@]|$(libdir)|g'
cmake/cudynConfig.cmake: $(srcdir)/cmake/cudynConfig.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake && \
	prefix='$(prefix)'; libdir='$(libdir)'; includedir='$(includedir)'; relocatable=TRUE; \
	case $$libdir in "$$prefix"/*) rel_lib=$${libdir#"$$prefix"/} ;; *) relocatable=FALSE; rel_lib=lib ;; esac; \
	case $$includedir in "$$prefix"/*) rel_inc=$${includedir#"$$prefix"/} ;; *) relocatable=FALSE; rel_inc=include ;; esac; \
	up=`echo "$$rel_lib/cmake/cudyn" | sed 's|[^/][^/]*|..|g'`; \
	static_libs=`echo '$(DL_LIBS)' | sed 's/^ *//; s/ *$$//; s/  */;/g'`; \
	$(CMAKE_SUBST) -e "s|@CUDYN_CMAKE_RELOCATABLE[@]|$$relocatable|g" -e "s|@CUDYN_CMAKE_UP[@]|$$up|g" \
	    -e "s|@CUDYN_CMAKE_LIBDIR[@]|$$rel_lib|g" -e "s|@CUDYN_CMAKE_INCLUDEDIR[@]|$$rel_inc|g" \
	    -e "s|@CUDYN_CMAKE_STATIC_LIBS[@]|$$static_libs|g" $(srcdir)/cmake/cudynConfig.cmake.in > $@.tmp && mv $@.tmp $@
cmake/cudynConfigVersion.cmake: $(srcdir)/cmake/cudynConfigVersion.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake && $(CMAKE_SUBST) $(srcdir)/cmake/cudynConfigVersion.cmake.in > $@.tmp && mv $@.tmp $@

EXTRA_DIST += cmake/cudynConfig.cmake.in cmake/cudynConfigVersion.cmake.in lib/libcudyn.map lib/README.md lib/local.mk
DISTCLEANFILES += cudyn.pc include/cudyn/version.h cmake/cudynConfig.cmake cmake/cudynConfigVersion.cmake
