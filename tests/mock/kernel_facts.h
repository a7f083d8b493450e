/*
 * kernel_facts.h - what the mocks say of every kernel, stated once: the
 * mock driver's cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_NUM_REGS) and the mock
 * NVRTC's ptxas report (--ptxas-options=-v) give the same register count.
 */
#ifndef CUDYN_MOCK_KERNEL_FACTS_H
#define CUDYN_MOCK_KERNEL_FACTS_H

#define MOCK_KERNEL_REGISTERS 16 /* per thread */

#endif
