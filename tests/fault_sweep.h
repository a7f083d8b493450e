/*
 * fault_sweep.h - the fault-injection sweep of the tests on the mock
 * driver: each driver function in turn fails its next call with each
 * result code; the operation that calls it must return the status cudyn
 * translates that code to, and leave nothing behind in the mock (device
 * memory, arrays, texture and surface objects, graphs).
 */
#ifndef CUDYN_FAULT_SWEEP_H
#define CUDYN_FAULT_SWEEP_H

#include "cudyn.h"
#include "mock/mock_control.h"
#include "testutil.h"

struct fault_case {
    const char *fn;  /* the driver function that fails (its exported name) */
    int (*op)(void); /* an operation that calls it; returns its status */
};

struct fault_code {
    unsigned int code; /* the CUresult the function returns */
    int status;        /* the cudyn status the operation must return */
};

/* Every case with every code.  settle (or NULL) runs after each operation,
 * before the mock's holdings are counted. */
static inline void fault_sweep(const struct fault_case *cases, size_t n_cases, const struct fault_code *codes,
                               size_t n_codes, void (*settle)(void))
{
    size_t memory = mock_device_memory_in_use();
    int arrays = mock_array_count(), textures = mock_texture_count(), graphs = mock_graph_count();
    for (size_t i = 0; i < n_cases; i++)
        for (size_t c = 0; c < n_codes; c++) {
            CHECK_EQ_INT(mock_fail_next(cases[i].fn, codes[c].code), 0);
            int st = cases[i].op();
            if (st != codes[c].status) {
                cudyn_error e = {.size = sizeof e};
                cudyn_last_error(&e);
                fprintf(stderr, "fault in %s (%u): got %s, expected %s (%s)\n", cases[i].fn, codes[c].code,
                        cudyn_status_name(st), cudyn_status_name(codes[c].status), e.message);
                test_failures++;
            }
            if (settle)
                settle();
            CHECK_EQ_INT(mock_device_memory_in_use(), memory);
            CHECK_EQ_INT(mock_array_count(), arrays);
            CHECK_EQ_INT(mock_texture_count(), textures);
            CHECK_EQ_INT(mock_graph_count(), graphs);
        }
}

#define FAULT_SWEEP(cases, codes, settle) \
    fault_sweep((cases), sizeof(cases) / sizeof(cases)[0], (codes), sizeof(codes) / sizeof(codes)[0], (settle))

#endif
