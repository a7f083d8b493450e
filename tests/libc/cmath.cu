#include <cmath>
#include "harness.cuh"
VALUES_BEGIN
#include "math.values"
#include "cmath.values"
VALUES_END
