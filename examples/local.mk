# examples/local.mk - the examples users copy from, installed under
# share/doc/cudyn/examples and built and run by tests/check-examples.sh
# (included from Makefile.am; paths are from the top of the tree)
# installed with a Makefile that builds them through pkg-config
examplesdir = $(docdir)/examples
dist_examples_DATA = examples/Makefile examples/saxpy.c examples/struct_args.c examples/template_kernel.c \
	examples/in_out.c
examplescxxdir = $(examplesdir)/cxx
dist_examplescxx_DATA = examples/cxx/saxpy.cc examples/cxx/struct_args.cc examples/cxx/stream_pipeline.cc

# built for tests/check-examples.sh
check_PROGRAMS += examples/saxpy examples/struct_args examples/template_kernel examples/in_out examples/elementwise \
	examples/multi_gpu examples/big_shared examples/texture examples/ipc_share examples/dynamic_parallelism
examples_texture_LDADD = $(LDADD) -lm
examples_ipc_share_SOURCES = examples/ipc_share.c examples/pass_fd.h
# the C++ examples (cudyn.hpp), as C++17
check_PROGRAMS += examples/cxx/saxpy examples/cxx/struct_args examples/cxx/stream_pipeline
examples_cxx_saxpy_SOURCES = examples/cxx/saxpy.cc
examples_cxx_saxpy_CXXFLAGS = $(AM_CXXFLAGS) -std=c++17
examples_cxx_struct_args_SOURCES = examples/cxx/struct_args.cc
examples_cxx_struct_args_CXXFLAGS = $(AM_CXXFLAGS) -std=c++17
examples_cxx_stream_pipeline_SOURCES = examples/cxx/stream_pipeline.cc
examples_cxx_stream_pipeline_CXXFLAGS = $(AM_CXXFLAGS) -std=c++17

# raw_driver includes <cudyn/driver.h>, hence <cuda.h>: only with CUDA headers
# (it links no CUDA library; check-examples.sh checks its NEEDED entries)
if HAVE_CUDA_HEADERS
check_PROGRAMS += examples/raw_driver
examples_raw_driver_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
endif

# mpi_saxpy is compiled and linked by the MPI C compiler configure found
# ($(MPICC)), which knows where mpi.h and the MPI libraries are.  Automake
# compiles every listed source with $(CC), so the program lists none: its
# object comes from the rule below, and examples_mpi_saxpy_LINK makes
# libtool link with $(MPICC) (and lib/libcudyn.la, as every example).
if HAVE_MPI
check_PROGRAMS += examples/mpi_saxpy
examples_mpi_saxpy_SOURCES =
examples_mpi_saxpy_LDADD = examples/mpi_saxpy.mpi.$(OBJEXT) $(LDADD)
examples_mpi_saxpy_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link \
	$(MPICC) $(AM_CFLAGS) $(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@
examples/mpi_saxpy.mpi.$(OBJEXT): $(srcdir)/examples/mpi_saxpy.c $(srcdir)/examples/bind_near_gpu.h \
		$(srcdir)/include/cudyn.h examples/$(am__dirstamp)
	$(AM_V_CC)$(MPICC) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) \
		-c -o $@ $(srcdir)/examples/mpi_saxpy.c
# mpi_stencil: built the same way (make bench runs it too)
check_PROGRAMS += examples/mpi_stencil
BENCH_NEEDS_MPI = examples/mpi_stencil$(EXEEXT)
examples_mpi_stencil_SOURCES =
examples_mpi_stencil_LDADD = examples/mpi_stencil.mpi.$(OBJEXT) $(LDADD)
examples_mpi_stencil_LINK = $(examples_mpi_saxpy_LINK)
examples/mpi_stencil.mpi.$(OBJEXT): $(srcdir)/examples/mpi_stencil.c $(srcdir)/examples/bind_near_gpu.h \
		$(srcdir)/include/cudyn.h examples/$(am__dirstamp)
	$(AM_V_CC)$(MPICC) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) \
		-c -o $@ $(srcdir)/examples/mpi_stencil.c
# allreduce: the same way (make bench runs it too)
check_PROGRAMS += examples/allreduce
BENCH_NEEDS_MPI += examples/allreduce$(EXEEXT)
examples_allreduce_SOURCES =
examples_allreduce_LDADD = examples/allreduce.mpi.$(OBJEXT) $(LDADD)
examples_allreduce_LINK = $(examples_mpi_saxpy_LINK)
examples/allreduce.mpi.$(OBJEXT): $(srcdir)/examples/allreduce.c $(srcdir)/examples/bind_near_gpu.h \
		$(srcdir)/include/cudyn.h examples/$(am__dirstamp)
	$(AM_V_CC)$(MPICC) $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) \
		-c -o $@ $(srcdir)/examples/allreduce.c
endif
# bind_near_gpu.h: their binding of a rank's threads next to its GPU
EXTRA_DIST += examples/mpi_saxpy.c examples/mpi_stencil.c examples/allreduce.c examples/bind_near_gpu.h
MOSTLYCLEANFILES += examples/mpi_saxpy.mpi.$(OBJEXT) examples/mpi_stencil.mpi.$(OBJEXT) examples/allreduce.mpi.$(OBJEXT)
EXTRA_DIST += examples/local.mk
