# tests/local.mk - make check's programs and scripts, the environment they run in,
# and the targets CI runs beside it (check-concurrency, fault-sweep, fuzz,
# check-gpu-sanitize)
# (included from Makefile.am; paths are from the top of the tree)
# One block per test: program, sources, TESTS.

# the mock's own test: its table against lib/driver_symbols.h
check_PROGRAMS += tests/mock/test_mock_table
TESTS += tests/mock/test_mock_table
tests_mock_test_mock_table_SOURCES = tests/mock/test_mock_table.c
tests_mock_test_mock_table_LDADD =

check_PROGRAMS += tests/test_mock_nvrtc
TESTS += tests/test_mock_nvrtc
tests_test_mock_nvrtc_SOURCES = tests/test_mock_nvrtc.c tests/testutil.h tests/mock/nvrtc/mock_nvrtc_control.h

check_PROGRAMS += tests/test_status
TESTS += tests/test_status
tests_test_status_SOURCES = tests/test_status.c tests/testutil.h

check_PROGRAMS += tests/test_target
TESTS += tests/test_target
tests_test_target_SOURCES = tests/test_target.c tests/testutil.h $(LIB_COMPILE_TARGET) $(LIB_COMPILE_OPTIONS)
tests_test_target_LDADD =

check_PROGRAMS += tests/test_compat
TESTS += tests/test_compat
tests_test_compat_SOURCES = tests/test_compat.c tests/testutil.h $(LIB_LOADER_COMPAT) $(LIB_BASE_UTIL)
tests_test_compat_LDADD =

check_PROGRAMS += tests/test_cubin
TESTS += tests/test_cubin
tests_test_cubin_SOURCES = tests/test_cubin.c tests/testutil.h $(LIB_COMPILE_IMAGE_FORMAT) $(LIB_COMPILE_SHA256) \
	$(LIB_COMPILE_PTX_INTERFACE) $(LIB_BASE_UTIL)
tests_test_cubin_LDADD =

check_PROGRAMS += tests/test_stage
TESTS += tests/test_stage
tests_test_stage_SOURCES = tests/test_stage.c tests/testutil.h tools/saxpy_stage.c tools/saxpy_stage.h
tests_test_stage_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_test_stage_LDADD =

check_PROGRAMS += tests/test_includes
TESTS += tests/test_includes
tests_test_includes_SOURCES = tests/test_includes.c tests/testutil.h $(LIB_COMPILE_INCLUDES) $(LIB_COMPILE_OPTIONS) \
	$(LIB_COMPILE_SHA256) $(LIB_BASE_UTIL)
tests_test_includes_LDADD =

check_PROGRAMS += tests/test_errors
TESTS += tests/test_errors
tests_test_errors_SOURCES = tests/test_errors.c tests/testutil.h

check_PROGRAMS += tests/test_nvml
TESTS += tests/test_nvml
tests_test_nvml_SOURCES = tests/test_nvml.c tests/testutil.h

check_PROGRAMS += tests/test_api
TESTS += tests/test_api
tests_test_api_SOURCES = tests/test_api.c tests/testutil.h tests/mock/mock_control.h tests/fault_sweep.h

check_PROGRAMS += tests/test_sharing
TESTS += tests/test_sharing
tests_test_sharing_SOURCES = tests/test_sharing.c tests/testutil.h tests/mock/mock_control.h

check_PROGRAMS += tests/test_threads
TESTS += tests/test_threads
tests_test_threads_SOURCES = tests/test_threads.c tests/testutil.h

check_PROGRAMS += tests/test_nvrtc
TESTS += tests/test_nvrtc
tests_test_nvrtc_SOURCES = tests/test_nvrtc.c tests/testutil.h

# the C library headers cudyn gives NVRTC, over the kernels of tests/libc
check_PROGRAMS += tests/test_libc_headers
TESTS += tests/test_libc_headers
tests_test_libc_headers_SOURCES = tests/test_libc_headers.c tests/libc_kernels.h tests/testutil.h

check_PROGRAMS += tests/test_gpu_libc
TESTS += tests/test_gpu_libc
tests_test_gpu_libc_SOURCES = tests/test_gpu_libc.c tests/libc_kernels.h tests/testutil.h
tests_test_gpu_libc_LDADD = $(LDADD) -lm
EXTRA_DIST += tests/libc

check_PROGRAMS += tests/test_link
TESTS += tests/test_link
tests_test_link_SOURCES = tests/test_link.c tests/testutil.h

check_PROGRAMS += tests/test_gpu_link
TESTS += tests/test_gpu_link
tests_test_gpu_link_SOURCES = tests/test_gpu_link.c tests/testutil.h

# the corpus of real nvcc-era kernels (tests/corpus/README.md)
check_PROGRAMS += tests/test_corpus
TESTS += tests/test_corpus
tests_test_corpus_SOURCES = tests/test_corpus.c tests/corpus_kernels.h tests/libc_kernels.h tests/testutil.h

check_PROGRAMS += tests/test_gpu_corpus
TESTS += tests/test_gpu_corpus
tests_test_gpu_corpus_SOURCES = tests/test_gpu_corpus.c tests/corpus_kernels.h tests/libc_kernels.h tests/testutil.h
tests_test_gpu_corpus_LDADD = $(LDADD) -lm
EXTRA_DIST += tests/corpus

check_PROGRAMS += tests/test_gpu
TESTS += tests/test_gpu
tests_test_gpu_SOURCES = tests/test_gpu.c tests/testutil.h

check_PROGRAMS += tests/test_gpu_features
TESTS += tests/test_gpu_features
tests_test_gpu_features_SOURCES = tests/test_gpu_features.c tests/testutil.h
tests_test_gpu_features_LDADD = $(LDADD) -lm

check_PROGRAMS += tests/test_gpu_ipc
TESTS += tests/test_gpu_ipc
tests_test_gpu_ipc_SOURCES = tests/test_gpu_ipc.c tests/testutil.h examples/pass_fd.h


check_PROGRAMS += tests/test_gpu_deploy
TESTS += tests/test_gpu_deploy
tests_test_gpu_deploy_SOURCES = tests/test_gpu_deploy.c tests/testutil.h tests/cachetest.h

check_PROGRAMS += tests/test_gpu_elementwise
TESTS += tests/test_gpu_elementwise
tests_test_gpu_elementwise_SOURCES = tests/test_gpu_elementwise.c tests/testutil.h

# the cache's file format and what it needs, built into the tests that
# look inside entries (the library hides these functions)
CACHE_FORMAT_SOURCES = $(LIB_COMPILE_CACHE_FORMAT) $(LIB_COMPILE_INCLUDES) $(LIB_COMPILE_OPTIONS) $(LIB_COMPILE_SHA256) \
	$(LIB_BASE_UTIL)

check_PROGRAMS += tests/test_cache
TESTS += tests/test_cache
tests_test_cache_SOURCES = tests/test_cache.c tests/testutil.h tests/cachetest.h $(CACHE_FORMAT_SOURCES)

check_PROGRAMS += tests/test_cache_deps
TESTS += tests/test_cache_deps
tests_test_cache_deps_SOURCES = tests/test_cache_deps.c tests/testutil.h tests/cachetest.h

check_PROGRAMS += tests/test_compile_threads
TESTS += tests/test_compile_threads
tests_test_compile_threads_SOURCES = tests/test_compile_threads.c tests/testutil.h tests/cachetest.h

check_PROGRAMS += tests/test_image
TESTS += tests/test_image
tests_test_image_SOURCES = tests/test_image.c tests/testutil.h

check_PROGRAMS += tests/fuzz/fuzz_cache
TESTS += tests/fuzz/fuzz_cache
tests_fuzz_fuzz_cache_SOURCES = tests/fuzz/fuzz_cache.c tests/fuzz/fuzz_common.h $(CACHE_FORMAT_SOURCES)
tests_fuzz_fuzz_cache_LDADD =

check_PROGRAMS += tests/fuzz/fuzz_image
TESTS += tests/fuzz/fuzz_image
tests_fuzz_fuzz_image_SOURCES = tests/fuzz/fuzz_image.c tests/fuzz/fuzz_common.h $(LIB_COMPILE_IMAGE_FORMAT) $(LIB_COMPILE_SHA256) $(LIB_BASE_UTIL)
tests_fuzz_fuzz_image_LDADD =

check_PROGRAMS += tests/test_args
TESTS += tests/test_args
tests_test_args_SOURCES = tests/test_args.c tests/testutil.h

check_PROGRAMS += tests/test_texture
TESTS += tests/test_texture
tests_test_texture_SOURCES = tests/test_texture.c tests/testutil.h tests/mock/mock_control.h tests/fault_sweep.h

check_PROGRAMS += tests/test_launch_ex
TESTS += tests/test_launch_ex
tests_test_launch_ex_SOURCES = tests/test_launch_ex.c tests/testutil.h tests/mock/mock_control.h tests/fault_sweep.h

check_PROGRAMS += tests/test_graph
TESTS += tests/test_graph
tests_test_graph_SOURCES = tests/test_graph.c tests/testutil.h tests/mock/mock_control.h tests/fault_sweep.h

check_PROGRAMS += tests/test_memory_ext
TESTS += tests/test_memory_ext
tests_test_memory_ext_SOURCES = tests/test_memory_ext.c tests/testutil.h tests/mock/mock_control.h tests/fault_sweep.h

check_PROGRAMS += tests/test_ipc
TESTS += tests/test_ipc
tests_test_ipc_SOURCES = tests/test_ipc.c tests/testutil.h examples/pass_fd.h tests/mock/mock_control.h

check_PROGRAMS += tests/test_nccl
TESTS += tests/test_nccl
tests_test_nccl_SOURCES = tests/test_nccl.c tests/testutil.h tests/mock/nccl/mock_nccl_control.h

# cudyn_mpi_cuda_support against a fake MPI the program itself exports
check_PROGRAMS += tests/test_mpi_cuda
TESTS += tests/test_mpi_cuda
tests_test_mpi_cuda_SOURCES = tests/test_mpi_cuda.c tests/testutil.h
tests_test_mpi_cuda_LDFLAGS = $(AM_LDFLAGS) -export-dynamic

check_PROGRAMS += tests/test_local_rank
TESTS += tests/test_local_rank
tests_test_local_rank_SOURCES = tests/test_local_rank.c tests/testutil.h

check_PROGRAMS += tests/fuzz/fuzz_format
TESTS += tests/fuzz/fuzz_format
tests_fuzz_fuzz_format_SOURCES = tests/fuzz/fuzz_format.c $(LIB_MODULE_FORMAT) $(LIB_COMPILE_PTX_INTERFACE) $(LIB_BASE_UTIL)
tests_fuzz_fuzz_format_LDADD =

check_PROGRAMS += tests/test_expr_tables
TESTS += tests/test_expr_tables
tests_test_expr_tables_SOURCES = tests/test_expr_tables.c tests/testutil.h $(LIB_EXPR_TEXT) $(LIB_MODULE_FORMAT) $(LIB_BASE_UTIL)
tests_test_expr_tables_LDADD =

check_PROGRAMS += tests/test_elementwise
TESTS += tests/test_elementwise
tests_test_elementwise_SOURCES = tests/test_elementwise.c tests/testutil.h tests/mock/mock_control.h \
	tests/mock/nvrtc/mock_nvrtc_control.h

# the fuzzers' seed corpora (tests/fuzz/corpus) parse, or not, as their names say
check_PROGRAMS += tests/fuzz/fuzz_seeds
TESTS += tests/fuzz/fuzz_seeds
tests_fuzz_fuzz_seeds_SOURCES = tests/fuzz/fuzz_seeds.c $(CACHE_FORMAT_SOURCES) $(LIB_MODULE_FORMAT) \
	$(LIB_COMPILE_PTX_INTERFACE) $(LIB_COMPILE_IMAGE_FORMAT)
tests_fuzz_fuzz_seeds_LDADD =

check_PROGRAMS += tests/test_header_c
TESTS += tests/test_header_c
tests_test_header_c_SOURCES = tests/test_header_c.c

check_PROGRAMS += tests/test_version
TESTS += tests/test_version
tests_test_version_SOURCES = tests/test_version.c tests/testutil.h

check_PROGRAMS += tests/test_header_cxx
TESTS += tests/test_header_cxx
tests_test_header_cxx_SOURCES = tests/test_header_cxx.cc

# cudyn.hpp: one test built as C++17, C++17 without exceptions, and C++20
check_PROGRAMS += tests/test_cxx17 tests/test_cxx17_noexcept
TESTS += tests/test_cxx17 tests/test_cxx17_noexcept
tests_test_cxx17_SOURCES = tests/test_cxx.cc
tests_test_cxx17_CXXFLAGS = $(AM_CXXFLAGS) -std=c++17
tests_test_cxx17_noexcept_SOURCES = tests/test_cxx.cc
tests_test_cxx17_noexcept_CXXFLAGS = $(AM_CXXFLAGS) -std=c++17 -fno-exceptions
if HAVE_CXX20
check_PROGRAMS += tests/test_cxx20
TESTS += tests/test_cxx20
tests_test_cxx20_SOURCES = tests/test_cxx.cc
tests_test_cxx20_CXXFLAGS = $(AM_CXXFLAGS) -std=c++20
endif

# A fully static program gets a status, never a crash (glibc cannot load
# libcuda into it, so the loaders refuse to; see test_static.c).
if STATIC_PROGRAMS
check_PROGRAMS += tests/test_static
TESTS += tests/test_static
tests_test_static_SOURCES = tests/test_static.c tests/testutil.h
tests_test_static_LDFLAGS = -all-static
endif
EXTRA_DIST += tests/test_static.c

# helpers the shell tests run
check_PROGRAMS += tests/probe tests/tables
tests_probe_SOURCES = tests/probe.c
tests_tables_SOURCES = tests/tables.c
tests_tables_LDADD =

if HAVE_CUDA_HEADERS
check_PROGRAMS += tests/check_cuda_abi
TESTS += tests/check_cuda_abi
tests_check_cuda_abi_SOURCES = tests/check_cuda_abi.c tests/check_cuda_abi_mine.c tests/check_cuda_abi.h
tests_check_cuda_abi_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
tests_check_cuda_abi_LDADD =

check_PROGRAMS += tests/test_driver_h
TESTS += tests/test_driver_h
tests_test_driver_h_SOURCES = tests/test_driver_h.c tests/testutil.h
tests_test_driver_h_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
endif


CHECK_SCRIPTS_LIST = \
	tests/check-exports.sh tests/check-abi.sh tests/check-loader.sh \
	tests/check-dispatch.sh tests/check-results.sh tests/check-cudainfo.sh tests/check-saxpy.sh tests/check-cudyn-cc.sh tests/check-exit-codes.sh \
	tests/check-examples.sh tests/check-mpi.sh tests/check-valgrind.sh \
	tests/check-readme.sh tests/check-install.sh tests/check-man.sh tests/check-bench-peers.sh tests/check-python.sh \
	tests/check-layers.sh tests/check-function-length.sh tests/check-completion.sh tests/check-docs.sh tests/check-platforms.sh \
	tests/check-compat.sh tests/check-versions.sh tests/check-driver-log.sh tests/check-loading-mode.sh \
	tests/check-dlopen-note.sh tests/check-nvml.sh tests/check-header-warnings.sh tests/check-libc-nvcc.sh
TESTS += $(CHECK_SCRIPTS_LIST)

EXTRA_DIST += $(CHECK_SCRIPTS_LIST) tests/common.sh tests/run-docs.sh tests/check-man.awk tests/cudyn.abi tests/mock/mock_control.h tests/mock/loaded_symbol.h \
	tests/mock/nvrtc/mock_nvrtc_control.h tests/mock/nccl/mock_nccl_control.h tests/fault-sweep.sh tests/fault-workflows \
	tests/fault-kernel.cu tests/fault-kernel.h tests/fuzz/corpus tests/check-gpu-sanitize.sh tests/gpu-fallback-checks.sh \
	tests/header_warnings.c tests/header_warnings.cc tests/tsan-python.supp
# PyCUDA's own test suite through cudyn.pycuda, run by hand on a GPU (not by make check)
EXTRA_DIST += tests/gpu-pycuda-suite.sh tests/pycuda-suite-scope.txt tests/gpu-verify.sh

# the lock tests/common.sh's install_staged takes
CLEANFILES += tests/install.lock

# Tests find the build tree, the mock driver and the mock NVRTC through these.
AM_TESTS_ENVIRONMENT = \
	top_builddir='$(abs_top_builddir)'; export top_builddir; \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	MOCK_LIBCUDA='$(abs_top_builddir)/tests/mock/.libs/libcuda.so.1'; export MOCK_LIBCUDA; \
	MOCK_LIBCUDA_V11_8='$(abs_top_builddir)/tests/mock/v11_8/.libs/libcuda.so.1'; export MOCK_LIBCUDA_V11_8; \
	MOCK_LIBCUDA_V11_0='$(abs_top_builddir)/tests/mock/v11_0/.libs/libcuda.so.1'; export MOCK_LIBCUDA_V11_0; \
	MOCK_LIBNVRTC='$(abs_top_builddir)/tests/mock/nvrtc/.libs/libnvrtc.so.13'; export MOCK_LIBNVRTC; \
	MOCK_LIBNVRTC_LEGACY='$(abs_top_builddir)/tests/mock/nvrtc/legacy/.libs/libnvrtc.so.13'; export MOCK_LIBNVRTC_LEGACY; \
	MOCK_LIBNCCL='$(abs_top_builddir)/tests/mock/nccl/.libs/libnccl.so.2'; export MOCK_LIBNCCL; \
	MOCK_LIBNCCL_OLD='$(abs_top_builddir)/tests/mock/nccl/old/.libs/libnccl.so.2'; export MOCK_LIBNCCL_OLD; \
	MOCK_LIBNVJITLINK_NEWER='$(abs_top_builddir)/tests/mock/nvjitlink/.libs/libnvJitLink.so.14'; export MOCK_LIBNVJITLINK_NEWER; \
	LIBCUDYN='$(abs_top_builddir)/lib/.libs/libcudyn.so.1'; export LIBCUDYN; \
	CUDA_INCLUDE_DIR='$(CUDA_INCLUDE_DIR)'; export CUDA_INCLUDE_DIR; \
	MPIRUN='$(MPIRUN)'; export MPIRUN; MPICC='$(MPICC)'; export MPICC; \
	CUDYN_SANITIZER='$(CUDYN_SANITIZER)'; export CUDYN_SANITIZER; \
	VALGRIND='$(VALGRIND)'; export VALGRIND; \
	ABIDIFF='$(ABIDIFF)'; export ABIDIFF; ABIDW='$(ABIDW)'; export ABIDW; PYTHON='$(PYTHON)'; export PYTHON; \
	PYTHON_MODULE='$(HAVE_PYTHON_MODULE)'; export PYTHON_MODULE; \
	CUDYN_CACHE_DIR='$(abs_top_builddir)/tests/cache'; export CUDYN_CACHE_DIR; \
	MAKE='$(MAKE)'; export MAKE; CC='$(CC)'; export CC; CXX='$(CXX)'; export CXX; prefix='$(prefix)'; export prefix; CUDYN_CFLAGS='$(CUDYN_CFLAGS)'; export CUDYN_CFLAGS; \
	libdir='$(libdir)'; export libdir; mandir='$(mandir)'; export mandir; docdir='$(docdir)'; export docdir;

# Refresh the committed ABI baseline on purpose (and add a NEWS line).
abi-baseline: lib/libcudyn.la
	$(ABIDW) --no-corpus-path --headers-dir $(top_srcdir)/include --drop-private-types lib/.libs/libcudyn.so.1 > $(top_srcdir)/tests/cudyn.abi

# libFuzzer builds of the three parsers of outside input (cache entries,
# launch formats, multi-architecture images) (need clang), each
# run for FUZZ_SECONDS from its seed corpus tests/fuzz/corpus/NAME (new inputs
# go to fuzz-corpus/NAME here, a crashing one to fuzz-artifacts/); any
# crash, sanitizer report or undefined behaviour fails.
#   make -j2 fuzz FUZZ_SECONDS=60      (all at once)
FUZZ_SECONDS = 30
FUZZ_CC = clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-DCUDYN_LIBFUZZER -I$(top_builddir) $(AM_CPPFLAGS)
FUZZ_CACHE_FILES = $(top_srcdir)/tests/fuzz/fuzz_cache.c $(patsubst %,$(top_srcdir)/%,$(filter %.c,$(CACHE_FORMAT_SOURCES)))
FUZZ_FORMAT_FILES = $(top_srcdir)/tests/fuzz/fuzz_format.c \
	$(patsubst %,$(top_srcdir)/%,$(filter %.c,$(LIB_MODULE_FORMAT) $(LIB_COMPILE_PTX_INTERFACE) $(LIB_BASE_UTIL)))
fuzz_cache_libfuzzer: $(FUZZ_CACHE_FILES) config.h
	$(FUZZ_CC) $(FUZZ_CACHE_FILES) -o $@
fuzz_format_libfuzzer: $(FUZZ_FORMAT_FILES) config.h
	$(FUZZ_CC) $(FUZZ_FORMAT_FILES) -o $@
FUZZ_IMAGE_FILES = $(top_srcdir)/tests/fuzz/fuzz_image.c \
	$(patsubst %,$(top_srcdir)/%,$(filter %.c,$(LIB_COMPILE_IMAGE_FORMAT) $(LIB_COMPILE_SHA256) $(LIB_BASE_UTIL)))
fuzz_image_libfuzzer: $(FUZZ_IMAGE_FILES) config.h
	$(FUZZ_CC) $(FUZZ_IMAGE_FILES) -o $@
fuzz: fuzz-cache fuzz-format fuzz-image
fuzz-%: fuzz_%_libfuzzer
	@mkdir -p fuzz-corpus/$* fuzz-artifacts
	@./fuzz_$*_libfuzzer -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=fuzz-artifacts/$*- \
	    fuzz-corpus/$* $(top_srcdir)/tests/fuzz/corpus/$* > fuzz-$*.log 2>&1 || \
	    { cat fuzz-$*.log; echo "fuzz_$*: FAILED; the input is in fuzz-artifacts/"; exit 1; }
	@echo "fuzz_$*: $$(sed -n 's/^stat::number_of_executed_units: *//p' fuzz-$*.log) executions in" \
	    "$(FUZZ_SECONDS) s from $$(ls $(top_srcdir)/tests/fuzz/corpus/$* | wc -l) seeds" \
	    "(corpus now $$(ls fuzz-corpus/$* | wc -l) inputs), no crash"
CLEANFILES += fuzz_cache_libfuzzer fuzz_format_libfuzzer fuzz_image_libfuzzer fuzz-cache.log fuzz-format.log \
	fuzz-image.log

# Tests that run cudyn in several threads (or processes) at once, which CI
# runs under ThreadSanitizer: configure --enable-sanitizer=thread, then
# make check-concurrency.  A test that starts threads must be listed.
CONCURRENCY_TESTS = tests/test_threads tests/test_api tests/test_errors tests/test_mock_nvrtc tests/test_cache \
	tests/test_compile_threads tests/test_sharing tests/test_elementwise tests/test_gpu tests/test_stage tests/test_local_rank \
	tests/test_nccl
check-concurrency:
	@missing=; for f in $(top_srcdir)/tests/test_*.c; do \
	    grep -q pthread_create "$$f" || continue; t=tests/`basename "$$f" .c`; \
	    case " $(CONCURRENCY_TESTS) " in *" $$t "*) ;; *) missing="$$missing $$t" ;; esac; \
	done; \
	test -z "$$missing" || { echo "check-concurrency: add$$missing to CONCURRENCY_TESTS (they start threads)"; exit 1; }
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(CONCURRENCY_TESTS)'

# The fault-injection sweep: every driver and NVRTC call of each workflow of
# tests/fault-workflows failed in turn (tests/fault-sweep.sh says what is
# checked).  CI runs it in the ASan+UBSan build, where leaks are reported.
fault-sweep: $(check_PROGRAMS) $(check_LTLIBRARIES) $(bin_PROGRAMS)
	@$(AM_TESTS_ENVIRONMENT) $(top_srcdir)/tests/fault-sweep.sh

# On a machine with a GPU: the GPU tests, the examples and both tools under
# compute-sanitizer's memcheck (leak check on), racecheck, synccheck and
# initcheck; every run must report 0 errors (tests/check-gpu-sanitize.sh
# says what opts out).  Skipped without a GPU or compute-sanitizer.
check-gpu-sanitize: $(check_PROGRAMS) $(check_LTLIBRARIES) $(bin_PROGRAMS)
	@$(AM_TESTS_ENVIRONMENT) $(top_srcdir)/tests/check-gpu-sanitize.sh; rc=$$?; \
	    if test $$rc = 77; then echo "check-gpu-sanitize: skipped"; else exit $$rc; fi

# On a machine with two GPUs, NCCL and MPI: issue 36's measurements in one
# run and one table (tests/gpu-nccl.sh: the C tests on the real NCCL, the
# all-reduce by each transport, the stencil by every path and schedule,
# the all-reduce beside torch.distributed); skipped (77) elsewhere.
check-gpu-nccl: $(check_PROGRAMS) $(check_LTLIBRARIES) $(bin_PROGRAMS)
	@$(AM_TESTS_ENVIRONMENT) PYTHON='$(PYTHON)' $(top_srcdir)/tests/gpu-nccl.sh; rc=$$?; \
	    if test $$rc = 77; then echo "check-gpu-nccl: skipped"; else exit $$rc; fi
EXTRA_DIST += tests/gpu-nccl.sh
.PHONY: check-gpu-nccl
EXTRA_DIST += tests/local.mk
