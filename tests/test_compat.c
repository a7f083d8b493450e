/*
 * test_compat.c - the forward-compatibility decision (cudyn__compat_decide,
 * lib/loader/compat.c) against a table of cases: a pure function of what
 * load_driver.c found, so each rule is a row here; and the release
 * comparison it rests on.  tests/check-compat.sh runs the acting side
 * (the fall-back to the system driver, the messages) on mock libraries.
 */
#include "config.h"

#include "loader/loader.h"
#include "testutil.h"

enum { NEVER = COMPAT_NEVER, AUTO = COMPAT_AUTO, REQUIRE = COMPAT_REQUIRE };

static const struct compat_case {
    const char *what;
    int policy;
    bool is_compat, already_loaded, not_newer;
    enum cudyn__compat_probe probe;
    unsigned int probe_result;
    enum cudyn__compat_verdict verdict;
    const char *why; /* a word why_not must hold, or "" */
} cases[] = {
    {"a system driver", AUTO, false, false, false, PROBE_NOT_RUN, 0, COMPAT_USE_FOUND, ""},
    {"a system driver, never", NEVER, false, false, false, PROBE_NOT_RUN, 0, COMPAT_USE_FOUND, ""},
    {"a system driver, require", REQUIRE, false, false, false, PROBE_NOT_RUN, 0, COMPAT_REFUSE_NOT_COMPAT, ""},
    {"compat, already loaded", AUTO, true, true, false, PROBE_NOT_RUN, 0, COMPAT_USE_LOADED, ""},
    {"compat, already loaded, never", NEVER, true, true, false, PROBE_NOT_RUN, 0, COMPAT_USE_LOADED, ""},
    {"compat, already loaded, not newer", AUTO, true, true, true, PROBE_NOT_RUN, 0, COMPAT_USE_LOADED, ""},
    {"compat, never", NEVER, true, false, false, PROBE_NOT_RUN, 0, COMPAT_CANNOT_WORK, "CUDYN_COMPAT=never"},
    {"compat, not newer", AUTO, true, false, true, PROBE_NOT_RUN, 0, COMPAT_CANNOT_WORK, "is not newer than"},
    {"compat, not newer, require", REQUIRE, true, false, true, PROBE_NOT_RUN, 0, COMPAT_CANNOT_WORK, "not newer"},
    {"compat, newer: probe first", AUTO, true, false, false, PROBE_NOT_RUN, 0, COMPAT_PROBE, ""},
    {"compat, newer, require: probe first", REQUIRE, true, false, false, PROBE_NOT_RUN, 0, COMPAT_PROBE, ""},
    {"compat, cuInit 0 in the child", AUTO, true, false, false, PROBE_ANSWERED, 0, COMPAT_USE, ""},
    {"compat, cuInit 803", AUTO, true, false, false, PROBE_ANSWERED, 803, COMPAT_CANNOT_WORK, "answered CODE (803)"},
    {"compat, cuInit 804", REQUIRE, true, false, false, PROBE_ANSWERED, 804, COMPAT_CANNOT_WORK, "(804) in a child"},
    {"compat, cuInit 100 (no device)", AUTO, true, false, false, PROBE_ANSWERED, 100, COMPAT_USE, ""},
    {"compat, no child could run", AUTO, true, false, false, PROBE_COULD_NOT_RUN, 0, COMPAT_USE, ""},
};

static void test_table(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct compat_case *c = &cases[i];
        struct cudyn__compat_facts f = {
            .policy = (enum cudyn__compat_policy)c->policy,
            .is_compat = c->is_compat,
            .already_loaded = c->already_loaded,
            .not_newer = c->not_newer,
            .release = "580.65.06",
            .kmod = "550.54.14",
            .probe = c->probe,
            .probe_result = c->probe_result,
            .probe_name = "CODE",
        };
        char why[512] = "left over";
        enum cudyn__compat_verdict v = cudyn__compat_decide(&f, why, sizeof why);
        if (v != c->verdict) {
            fprintf(stderr, "%s: verdict %d, expected %d\n", c->what, (int)v, (int)c->verdict);
            test_failures++;
        }
        if (c->why[0])
            CHECK_CONTAINS(why, c->why);
        else if (why[0]) {
            fprintf(stderr, "%s: a reason \"%s\" where none was expected\n", c->what, why);
            test_failures++;
        }
    }
    /* the reason names the releases it compared */
    struct cudyn__compat_facts f = {.policy = COMPAT_AUTO, .is_compat = true, .not_newer = true,
                                    .release = "550.40.07", .kmod = "550.54.14"};
    char why[512];
    CHECK_EQ_INT(cudyn__compat_decide(&f, why, sizeof why), COMPAT_CANNOT_WORK);
    CHECK_CONTAINS(why, "release 550.40.07 is not newer than the kernel module 550.54.14");
}

static void test_release_order(void)
{
    CHECK(cudyn__compare_release("580.65.06", "550.54.14") > 0);
    CHECK(cudyn__compare_release("550.54.14", "550.54.14") == 0);
    CHECK(cudyn__compare_release("550.54.9", "550.54.14") < 0); /* by number, not text */
    CHECK(cudyn__compare_release("550.54", "550.54.1") < 0);
    CHECK(cudyn__in_compat_dir("/usr/local/cuda/compat/libcuda.so.580.65.06"));
    CHECK(!cudyn__in_compat_dir("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"));
}

int main(void)
{
    test_table();
    test_release_order();
    return test_result("test_compat");
}
