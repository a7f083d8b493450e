#include <sys/types.h>
#include "harness.cuh"
VALUES_BEGIN
#include "types.values"
VALUES_END
