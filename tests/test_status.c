/*
 * test_status.c - status names and descriptions, and the translation of
 * every CUresult through CUDA 13: the mock driver fails cuMemAlloc with
 * each code in turn and the error detail must name it and keep it.
 */
#include "config.h"

#include <stdio.h>

#include "cudyn.h"
#include "hints.h"
#include "testutil.h"

/* Every CUresult, from the library's own list (lib/cuda_results.h): the
 * test walks the table the translation is built from, so no row goes
 * untested; check-results.sh proves the list matches cuda.h. */
static const struct {
    int code;
    const char *name;
    int status;
    const char *hint;
} cuda_codes[] = {
#define CUDA_RESULT(code, name, status, hint) {code, #name, CUDYN_##status, hint},
#include "cuda_results.h"
#undef CUDA_RESULT
};
#define N_CODES (sizeof cuda_codes / sizeof cuda_codes[0])
#define UNKNOWN_CODE 4242

/* The statuses users branch on, stated again on purpose: an edit of the
 * list that changes one of them must fail here. */
static const struct {
    int code;
    int status;
} key_mappings[] = {
    {1, CUDYN_ERROR_INVALID_ARGUMENT},   {2, CUDYN_ERROR_OUT_OF_MEMORY},     {34, CUDYN_ERROR_STUB_DRIVER},
    {36, CUDYN_ERROR_DRIVER_TOO_OLD},    {46, CUDYN_ERROR_DEVICE_UNAVAILABLE}, {100, CUDYN_ERROR_NO_DEVICE},
    {101, CUDYN_ERROR_INVALID_DEVICE},   {200, CUDYN_ERROR_INVALID_IMAGE},   {209, CUDYN_ERROR_NO_BINARY_FOR_GPU},
    {218, CUDYN_ERROR_INVALID_IMAGE},    {222, CUDYN_ERROR_UNSUPPORTED_PTX}, {400, CUDYN_ERROR_INVALID_HANDLE},
    {500, CUDYN_ERROR_NOT_FOUND},        {600, CUDYN_ERROR_NOT_READY},       {700, CUDYN_ERROR_ILLEGAL_ADDRESS},
    {701, CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES}, {702, CUDYN_ERROR_LAUNCH_TIMEOUT}, {710, CUDYN_ERROR_ASSERT},
    {716, CUDYN_ERROR_ILLEGAL_INSTRUCTION}, {719, CUDYN_ERROR_LAUNCH_FAILED}, {801, CUDYN_ERROR_NOT_SUPPORTED},
    {803, CUDYN_ERROR_INIT_FAILED},      {909, CUDYN_ERROR_TIMEOUT},         {999, CUDYN_ERROR_DRIVER},
};

/* Every status of CUDYN_STATUS_MAP, from the map itself. */
static const struct {
    int value;
    const char *name, *text;
} statuses[] = {
#define STATUS_ROW(name, value, text) {value, "CUDYN_" #name, text},
    CUDYN_STATUS_MAP(STATUS_ROW)
#undef STATUS_ROW
};

static void test_names(void)
{
    size_t n = sizeof statuses / sizeof statuses[0];
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_INT(statuses[i].value, (int)i); /* dense and in order: never renumbered, only appended */
        CHECK(strcmp(cudyn_status_name(statuses[i].value), statuses[i].name) == 0);
        CHECK(strcmp(cudyn_status_string(statuses[i].value), statuses[i].text) == 0);
    }
    CHECK(strcmp(cudyn_status_name((int)n), "CUDYN_STATUS_UNKNOWN") == 0);
    for (int s = 0; s < (int)n; s++) {
        const char *name = cudyn_status_name(s);
        CHECK(strncmp(name, "CUDYN_", 6) == 0 && strcmp(name, "CUDYN_STATUS_UNKNOWN") != 0);
        CHECK(strcmp(cudyn_status_string(s), "unknown cudyn status") != 0);
        for (int t = 0; t < s; t++)
            CHECK(strcmp(name, cudyn_status_name(t)) != 0);
    }
    CHECK(strcmp(cudyn_status_name(CUDYN_OK), "CUDYN_OK") == 0);
    CHECK(strcmp(cudyn_status_name(CUDYN_ERROR_OUT_OF_MEMORY), "CUDYN_ERROR_OUT_OF_MEMORY") == 0);
    CHECK(strcmp(cudyn_status_name(-1), "CUDYN_STATUS_UNKNOWN") == 0);
    CHECK(strcmp(cudyn_status_name(100000), "CUDYN_STATUS_UNKNOWN") == 0);
    CHECK(strcmp(cudyn_status_string(-5), "unknown cudyn status") == 0);
}

static int expected_status(int code)
{
    for (size_t i = 0; i < sizeof key_mappings / sizeof key_mappings[0]; i++)
        if (key_mappings[i].code == code)
            return key_mappings[i].status;
    return -1;
}

static void test_driver_translation(void)
{
    /* Fail the n-th cuMemAlloc with the n-th code (CUDA_SUCCESS left out),
     * then an unknown one. */
    static char spec[16384];
    size_t len = 0, n = 0;
    for (size_t i = 0; i < N_CODES; i++)
        if (cuda_codes[i].code != 0)
            len += (size_t)snprintf(spec + len, sizeof spec - len, "cuMemAlloc_v2:%zu:%d,", ++n, cuda_codes[i].code);
    snprintf(spec + len, sizeof spec - len, "cuMemAlloc_v2:%zu:%d", n + 1, UNKNOWN_CODE);
    setenv("MOCK_CUDA_FAIL", spec, 1);

    for (size_t i = 0; i < N_CODES; i++) {
        if (cuda_codes[i].code == 0)
            continue;
        cudyn_devptr p = 1;
        int st = cudyn_mem_alloc(&p, 64);
        cudyn_error e = {.size = sizeof e};
        CHECK_EQ_INT(cudyn_last_error(&e), st);
        CHECK_EQ_INT(st, cuda_codes[i].status);
        CHECK_EQ_INT(p, 0);
        CHECK_EQ_INT(e.native_code, cuda_codes[i].code);
        CHECK_EQ_INT(e.origin, CUDYN_ORIGIN_DRIVER);
        if (strcmp(e.native_name, cuda_codes[i].name) != 0) {
            fprintf(stderr, "code %d: named '%s', expected '%s'\n", cuda_codes[i].code, e.native_name,
                    cuda_codes[i].name);
            test_failures++;
        }
        CHECK(strcmp(e.function, "cuMemAlloc") == 0);
        CHECK_CONTAINS(e.message, cuda_codes[i].name);
        CHECK_CONTAINS(e.message, "cudyn_mem_alloc");
        /* the row's hint, alone in .hint and ending the message */
        const char *hint = cuda_codes[i].hint ? cuda_codes[i].hint : "";
        CHECK(strcmp(e.hint, hint) == 0);
        if (hint[0]) {
            size_t ml = strlen(e.message), hl = strlen(hint);
            CHECK(ml > hl + 8 && strcmp(e.message + ml - hl, hint) == 0 &&
                  strncmp(e.message + ml - hl - 8, "; hint: ", 8) == 0);
        } else {
            CHECK(!strstr(e.message, "hint:"));
        }
        int want = expected_status(cuda_codes[i].code);
        if (want >= 0 && st != want) {
            fprintf(stderr, "code %d: status %s, expected %s\n", cuda_codes[i].code, cudyn_status_name(st),
                    cudyn_status_name(want));
            test_failures++;
        }
    }
    /* the hints users need most are there */
    for (size_t i = 0; i < N_CODES; i++) {
        int c = cuda_codes[i].code;
        if (c == 2 || c == 34 || c == 46 || c == 100 || c == 209 || c == 222 || c == 700 || c == 803 || c == 804 ||
            c == 999)
            CHECK(cuda_codes[i].hint != NULL);
        if (c == 100)
            CHECK_CONTAINS(cuda_codes[i].hint, "CUDA_VISIBLE_DEVICES");
    }
    cudyn_devptr p;
    cudyn_error e = {.size = sizeof e};
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_ERROR_DRIVER);
    cudyn_last_error(&e);
    CHECK_EQ_INT(e.native_code, UNKNOWN_CODE);
    CHECK(strcmp(e.native_name, "CUDA_ERROR_UNKNOWN_CODE") == 0);
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
}

int main(void)
{
    use_mock_driver();
    test_names();
    test_driver_translation();
    return test_result("test_status");
}
