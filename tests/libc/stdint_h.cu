#include <stdint.h>
#include "harness.cuh"
VALUES_BEGIN
#include "stdint.values"
VALUES_END
