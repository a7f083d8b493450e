# bench/local.mk - make bench (cudyn against direct driver calls) and make
# bench-peers (against cuda-python and CuPy)
# (included from Makefile.am; paths are from the top of the tree)
EXTRA_PROGRAMS += bench/bench
bench_bench_SOURCES = bench/bench.c bench/bench_util.h
CLEANFILES += bench/bench$(EXEEXT)

# Without a GPU, bench runs on the mock driver, given two devices so that
# the peer-copy rows run too (the real driver ignores MOCK_* variables).
bench: bench/bench$(EXEEXT) $(check_LTLIBRARIES) $(BENCH_NEEDS_MPI)
	MOCK_LIBCUDA='$(abs_top_builddir)/tests/mock/.libs/libcuda.so.1' MOCK_CUDA_DEVICES='Mock GPU:90,Mock GPU:90' \
	    MOCK_LIBNCCL='$(abs_top_builddir)/tests/mock/nccl/.libs/libnccl.so.2' \
	    BENCH_MPIRUN='$(MPIRUN)' BENCH_STENCIL='$(abs_top_builddir)/examples/mpi_stencil$(EXEEXT)' \
	    BENCH_ALLREDUCE='$(abs_top_builddir)/examples/allreduce$(EXEEXT)' ./bench/bench$(EXEEXT)

# ---------------------------------------------------------------- peers
# make bench-peers: the same work through direct C, cudyn, cuda-python and
# CuPy in one run and one table (bench/peers.py; BENCH_PEERS_FLAGS=--json
# for JSON).  A peer Python cannot import is a "skipped" line, and no
# python3 at all is one line too: neither fails the target.  The C
# programs: peers_c (launch loop and trivial call, direct and through
# cudyn), saxpy_direct (the baseline application, no cudyn, nothing CUDA
# linked) and a copy of cudyn-saxpy linked to run without libtool's wrapper
# script, whose shell would be timed with it (override with CUDYN_SAXPY).
EXTRA_PROGRAMS += bench/peers_c bench/saxpy_direct bench/cudyn-saxpy
bench_peers_c_SOURCES = bench/peers_c.c bench/bench_util.h
bench_saxpy_direct_SOURCES = bench/saxpy_direct.c
bench_saxpy_direct_LDADD =
bench_cudyn_saxpy_SOURCES = $(tools_cudyn_saxpy_SOURCES)
CLEANFILES += bench/peers_c$(EXEEXT) bench/saxpy_direct$(EXEEXT) bench/cudyn-saxpy$(EXEEXT)
EXTRA_DIST += bench/peers.py bench/peers_saxpy.py bench/peers_nccl.py bench/python_builds.py
BENCH_PEERS_FLAGS =
CUDYN_SAXPY = ./bench/cudyn-saxpy$(EXEEXT)
# The Python module's rows take this build's module, staged as for make
# check (python/staged, made here when missing), with configure's
# interpreter.  To measure an installed wheel instead, name the
# interpreter that has it and say so:
#   make bench-peers BENCH_PEERS_INTERPRETER=/path/to/venv/bin/python BENCH_PEERS_CUDYN=installed
BENCH_PEERS_INTERPRETER = $(PYTHON)
BENCH_PEERS_CUDYN = python/staged
if HAVE_PYTHON_MODULE
BENCH_PEERS_STAGE = python-staged
endif

# Then the all-reduce beside torch.distributed (bench/peers_nccl.py: 2
# ranks under mpirun, the same NCCL; skipped with a line without torch,
# two GPUs or MPI).
bench-peers: bench/peers_c$(EXEEXT) bench/saxpy_direct$(EXEEXT) bench/cudyn-saxpy$(EXEEXT) $(check_LTLIBRARIES) \
		$(BENCH_PEERS_STAGE) $(BENCH_NEEDS_MPI)
	@if test -z '$(BENCH_PEERS_INTERPRETER)'; then \
	    echo "bench-peers: skipped: configure found no Python 3 (./configure PYTHON=/path/to/python3)"; \
	else \
	    MOCK_LIBCUDA='$(abs_top_builddir)/tests/mock/.libs/libcuda.so.1' \
	    '$(BENCH_PEERS_INTERPRETER)' $(srcdir)/bench/peers.py --peers-c ./bench/peers_c$(EXEEXT) \
	        --saxpy-direct ./bench/saxpy_direct$(EXEEXT) --cudyn-saxpy '$(CUDYN_SAXPY)' \
	        --cudyn-python '$(BENCH_PEERS_CUDYN)' $(BENCH_PEERS_FLAGS) && \
	    '$(BENCH_PEERS_INTERPRETER)' $(srcdir)/bench/peers_nccl.py --mpirun '$(MPIRUN)' \
	        --allreduce '$(abs_top_builddir)/examples/allreduce$(EXEEXT)' $(BENCH_PEERS_NCCL_FLAGS); \
	fi
BENCH_PEERS_NCCL_FLAGS =

.PHONY: bench bench-peers abi-baseline fuzz check-concurrency fault-sweep check-gpu-sanitize
EXTRA_DIST += bench/local.mk
