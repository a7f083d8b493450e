#define ASSERT_HEADER <cassert>
#include "harness.cuh"
#include "assert.cuh"
VALUES_BEGIN
#include "assert.values"
VALUES_END
