/* <assert.h> obeys NDEBUG at each inclusion, as the C library's does: the
   expression is not evaluated under NDEBUG, and is once it is undefined. */
#define NDEBUG
#include ASSERT_HEADER
__device__ int evaluated_under_ndebug()
{
    int evaluated = 0;
    assert((evaluated = 1) == 0);
    return evaluated;
}
#undef NDEBUG
#include ASSERT_HEADER
__device__ int evaluated_without_ndebug()
{
    int evaluated = 0;
    assert((evaluated = 1) == 1);
    return evaluated;
}
/* a failing assertion stops the kernel (tests/test_gpu_libc.c runs it in a
   process of its own: it leaves the context unusable) */
extern "C" __global__ void assert_fails(int n)
{
    assert(n < 0);
}
