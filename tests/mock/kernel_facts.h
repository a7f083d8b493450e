/*
 * kernel_facts.h - what the mocks say of every kernel, stated once: the
 * mock driver's cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_NUM_REGS) and the mock
 * NVRTC's ptxas report (--ptxas-options=-v) give the same register count;
 * the mock NVRTC writes each kernel's source into its PTX in the form the
 * mock driver's host evaluator reads back (mock_eval.c).
 */
#ifndef CUDYN_MOCK_KERNEL_FACTS_H
#define CUDYN_MOCK_KERNEL_FACTS_H

#define MOCK_KERNEL_REGISTERS 16 /* per thread */

/* After the PTX's entries, the definition of kernel NAME as written, one
 * PTX comment line per line of it:
 *   // mock-nvrtc source NAME
 *   //>extern "C" __global__ void NAME(float *x)
 *   //>{ ... }
 * (a kernel whose definition names a macro has none). */
#define MOCK_SOURCE_HEADER "// mock-nvrtc source "
#define MOCK_SOURCE_LINE "//>"
/* Then each __device__ function the program defines at namespace scope
 * (templates too), as written, the same way:
 *   // mock-nvrtc function
 *   //>template <typename T> __device__ T f(T x)
 *   //>{ ... } */
#define MOCK_FUNCTION_HEADER "// mock-nvrtc function"

#endif
