#include <math.h>
#include "harness.cuh"
VALUES_BEGIN
#include "math.values"
VALUES_END
