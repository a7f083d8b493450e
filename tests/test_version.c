/* The compile-time version of the headers (cudyn/version.h, written by
 * configure) is the library's: the macros agree with each other and with
 * cudyn_version(), which this test's library, built in the same tree,
 * must match exactly. */
#include "config.h"

#include "cudyn.h"

#include "testutil.h"

#if !defined(CUDYN_VERSION_MAJOR) || !defined(CUDYN_VERSION_MINOR) || !defined(CUDYN_VERSION_PATCH) || \
    !defined(CUDYN_VERSION_NUM) || !defined(CUDYN_VERSION_STRING) || !defined(CUDYN_VERSION_AT_LEAST)
#error "cudyn.h does not define the version macros"
#endif

/* usable in #if, as programs use them */
#if CUDYN_VERSION_NUM < 0x000200 || !CUDYN_VERSION_AT_LEAST(0, 2, 0) || CUDYN_VERSION_AT_LEAST(255, 0, 0)
#error "CUDYN_VERSION_NUM is not a number #if can compare"
#endif

int main(void)
{
    char parts[32];
    snprintf(parts, sizeof parts, "%d.%d.%d", CUDYN_VERSION_MAJOR, CUDYN_VERSION_MINOR, CUDYN_VERSION_PATCH);
    CHECK(strcmp(parts, CUDYN_VERSION_STRING) == 0);
    CHECK(strcmp(cudyn_version(), CUDYN_VERSION_STRING) == 0);
    CHECK_EQ_INT(CUDYN_VERSION_NUM, CUDYN_VERSION_MAJOR * 65536 + CUDYN_VERSION_MINOR * 256 + CUDYN_VERSION_PATCH);
    CHECK(CUDYN_VERSION_AT_LEAST(CUDYN_VERSION_MAJOR, CUDYN_VERSION_MINOR, CUDYN_VERSION_PATCH));
    CHECK(!CUDYN_VERSION_AT_LEAST(CUDYN_VERSION_MAJOR, CUDYN_VERSION_MINOR, CUDYN_VERSION_PATCH + 1));
    CHECK(CUDYN_VERSION_AT_LEAST(CUDYN_VERSION_MAJOR, CUDYN_VERSION_MINOR - (CUDYN_VERSION_MINOR > 0), 0));
    if (test_failures)
        fprintf(stderr, "headers %s (0x%06x), library %s\n", CUDYN_VERSION_STRING, CUDYN_VERSION_NUM, cudyn_version());
    return test_result("test_version");
}
