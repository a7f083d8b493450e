#define ASSERT_HEADER <assert.h>
#include "harness.cuh"
#include "assert.cuh"
VALUES_BEGIN
#include "assert.values"
VALUES_END
