#include <cstdint>
#include "harness.cuh"
VALUES_BEGIN
#include "stdint.values"
#include "cstdint.values"
VALUES_END
