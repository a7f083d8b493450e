# tests/mock/local.mk - the mock driver, the mock NVRTC and the mock NVML the tests load
# (never installed)
# (included from Makefile.am; paths are from the top of the tree)
# A fake NVML for cudainfo --p2p in tests/check-cudainfo.sh (added to
# check_LTLIBRARIES below; the test points CUDAINFO_NVML at it).
TOOLS_TEST_MOCKS = tests/mock/nvml/libnvidia-ml.la
tests_mock_nvml_libnvidia_ml_la_SOURCES = tests/mock/mock_nvml.c
tests_mock_nvml_libnvidia_ml_la_LDFLAGS = -rpath /nowhere -version-info 1:0:0 -no-undefined
# the same without nvmlDeviceGetCpuAffinity, as an old driver's NVML
TOOLS_TEST_MOCKS += tests/mock/nvml_old/libnvidia-ml.la
tests_mock_nvml_old_libnvidia_ml_la_SOURCES = tests/mock/mock_nvml.c
tests_mock_nvml_old_libnvidia_ml_la_CPPFLAGS = $(AM_CPPFLAGS) -DMOCK_NVML_WITHOUT_AFFINITY
tests_mock_nvml_old_libnvidia_ml_la_LDFLAGS = $(tests_mock_nvml_libnvidia_ml_la_LDFLAGS)

# The mock driver: three builds of the same sources, because what a real driver
# exports cannot be changed at run time: CUDA 12+ (cuGetProcAddress_v2),
# 11.3-11.8 (only the 4-argument cuGetProcAddress) and 11.0-11.2 (neither).
# Its cuGetProcAddress table comes from lib/driver_symbols.h: a row the mock
# does not implement is an undefined symbol, which --no-undefined refuses
# (not under sanitizers, whose runtime lives in the executable).
MOCK_SOURCES = tests/mock/mock.h tests/mock/mock_core.c tests/mock/mock_device.c tests/mock/mock_context.c \
	tests/mock/mock_memory.c tests/mock/mock_stream.c tests/mock/mock_module.c tests/mock/mock_link.c tests/mock/mock_launch.c \
	tests/mock/mock_array.c tests/mock/mock_texture.c tests/mock/mock_graph.c tests/mock/mock_pool.c \
	tests/mock/mock_ipc.c tests/mock/mock_elementwise.c tests/mock/mock_eval.h tests/mock/mock_eval.c \
	tests/mock/mock_expr.c tests/mock/calls.h tests/mock/kernel_facts.h
MOCK_LDFLAGS = -rpath /nowhere -version-info 1:0:0 -no-undefined
if !SANITIZER
MOCK_LDFLAGS += -Wl,--no-undefined
endif
MOCK_CFLAGS = $(AM_CFLAGS)
check_LTLIBRARIES += tests/mock/libcuda.la tests/mock/v11_8/libcuda.la tests/mock/v11_0/libcuda.la \
	$(TOOLS_TEST_MOCKS)
tests_mock_libcuda_la_SOURCES = $(MOCK_SOURCES)
tests_mock_libcuda_la_CFLAGS = $(MOCK_CFLAGS)
tests_mock_libcuda_la_LDFLAGS = $(MOCK_LDFLAGS)
tests_mock_libcuda_la_LIBADD = -lm
tests_mock_v11_8_libcuda_la_SOURCES = $(MOCK_SOURCES)
tests_mock_v11_8_libcuda_la_CPPFLAGS = $(AM_CPPFLAGS) -DMOCK_PROC_ADDRESS=1
tests_mock_v11_8_libcuda_la_CFLAGS = $(MOCK_CFLAGS)
tests_mock_v11_8_libcuda_la_LDFLAGS = $(MOCK_LDFLAGS)
tests_mock_v11_8_libcuda_la_LIBADD = -lm
tests_mock_v11_0_libcuda_la_SOURCES = $(MOCK_SOURCES)
tests_mock_v11_0_libcuda_la_CPPFLAGS = $(AM_CPPFLAGS) -DMOCK_PROC_ADDRESS=0
tests_mock_v11_0_libcuda_la_CFLAGS = $(MOCK_CFLAGS)
tests_mock_v11_0_libcuda_la_LDFLAGS = $(MOCK_LDFLAGS)
tests_mock_v11_0_libcuda_la_LIBADD = -lm

# The mock NVRTC: a fake libnvrtc.so.13 (soname current - age = 13), and a
# second build of the same source for NVRTC before 11.2, which does not
# export nvrtcGetNumSupportedArchs / nvrtcGetSupportedArchs (nor LTO IR).
MOCK_NVRTC_SOURCES = tests/mock/nvrtc/mock_nvrtc.h tests/mock/nvrtc/mock_nvrtc.c tests/mock/nvrtc/text.c \
	tests/mock/nvrtc/options.c tests/mock/nvrtc/preprocess.c tests/mock/nvrtc/declarations.c tests/mock/calls.h tests/mock/kernel_facts.h
MOCK_NVRTC_CFLAGS = $(AM_CFLAGS) $(CUDYN_VISIBILITY_CFLAGS)
MOCK_NVRTC_LDFLAGS = -rpath /nowhere -version-info 13:0:0 -no-undefined
check_LTLIBRARIES += tests/mock/nvrtc/libnvrtc.la tests/mock/nvrtc/legacy/libnvrtc.la
tests_mock_nvrtc_libnvrtc_la_SOURCES = $(MOCK_NVRTC_SOURCES)
tests_mock_nvrtc_libnvrtc_la_CFLAGS = $(MOCK_NVRTC_CFLAGS)
tests_mock_nvrtc_libnvrtc_la_LDFLAGS = $(MOCK_NVRTC_LDFLAGS)
tests_mock_nvrtc_legacy_libnvrtc_la_SOURCES = $(MOCK_NVRTC_SOURCES)
tests_mock_nvrtc_legacy_libnvrtc_la_CPPFLAGS = $(AM_CPPFLAGS) -DMOCK_NVRTC_LEGACY=1
tests_mock_nvrtc_legacy_libnvrtc_la_CFLAGS = $(MOCK_NVRTC_CFLAGS)
tests_mock_nvrtc_legacy_libnvrtc_la_LDFLAGS = $(MOCK_NVRTC_LDFLAGS)
# The mock NCCL: a fake libnccl.so.2 (soname current - age = 2) written
# against lib/nccl_abi.h and lib/nccl_symbols.h, and a second build of the
# same sources as NCCL 2.12 (no ncclGetLastError, no ncclCommSplit).
MOCK_NCCL_SOURCES = tests/mock/nccl/mock_nccl.h tests/mock/nccl/mock_nccl.c tests/mock/nccl/api.c \
	tests/mock/nccl/world.c tests/mock/nccl/reduce.c tests/mock/calls.h
MOCK_NCCL_CFLAGS = $(AM_CFLAGS) $(CUDYN_VISIBILITY_CFLAGS)
MOCK_NCCL_LDFLAGS = -rpath /nowhere -version-info 2:0:0 -no-undefined
if !SANITIZER
MOCK_NCCL_LDFLAGS += -Wl,--no-undefined
endif
MOCK_NCCL_LIBS = -lm -lrt $(DL_LIBS)
check_LTLIBRARIES += tests/mock/nccl/libnccl.la tests/mock/nccl/old/libnccl.la
tests_mock_nccl_libnccl_la_SOURCES = $(MOCK_NCCL_SOURCES)
tests_mock_nccl_libnccl_la_CFLAGS = $(MOCK_NCCL_CFLAGS)
tests_mock_nccl_libnccl_la_LDFLAGS = $(MOCK_NCCL_LDFLAGS)
tests_mock_nccl_libnccl_la_LIBADD = $(MOCK_NCCL_LIBS)
tests_mock_nccl_old_libnccl_la_SOURCES = $(MOCK_NCCL_SOURCES)
tests_mock_nccl_old_libnccl_la_CPPFLAGS = $(AM_CPPFLAGS) -DMOCK_NCCL_OLD=1
tests_mock_nccl_old_libnccl_la_CFLAGS = $(MOCK_NCCL_CFLAGS)
tests_mock_nccl_old_libnccl_la_LDFLAGS = $(MOCK_NCCL_LDFLAGS)
tests_mock_nccl_old_libnccl_la_LIBADD = $(MOCK_NCCL_LIBS)
# A fake nvJitLink of a newer major than cudyn knows (libnvJitLink.so.14),
# which the loader must refuse (test_link).
check_LTLIBRARIES += tests/mock/nvjitlink/libnvJitLink.la
tests_mock_nvjitlink_libnvJitLink_la_SOURCES = tests/mock/nvjitlink/newer.c
tests_mock_nvjitlink_libnvJitLink_la_CFLAGS = $(AM_CFLAGS) $(CUDYN_VISIBILITY_CFLAGS)
tests_mock_nvjitlink_libnvJitLink_la_LDFLAGS = -rpath /nowhere -version-info 14:0:0 -no-undefined
EXTRA_DIST += tests/mock/local.mk
