#include <stdbool.h>
#include "harness.cuh"
VALUES_BEGIN
#include "stdbool.values"
VALUES_END
