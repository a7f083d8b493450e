/*
 * fuzz_format.c - the launch format parser (cudyn__format_parse) fed random
 * and mutated strings.  `make check` runs a bounded, seeded run that also
 * checks what every accepted format means; `make fuzz-format` builds the
 * same target for libFuzzer.  CI's AddressSanitizer build catches any read
 * outside the string.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/args.h"

static const char alphabet[] = "?bBhHiIqQefdFDpztus<>= ";

static void check_one(const char *fmt)
{
    struct cudyn__format f;
    char err[128] = "";
    int rc = cudyn__format_parse(fmt, &f, err, sizeof err);
    size_t letters = 0;
    int foreign = 0;
    for (const char *c = fmt; *c; c++) {
        if (*c == ' ')
            continue;
        letters++;
        if (!strchr(alphabet, *c))
            foreign = 1;
    }
    /* accepted exactly when every character is in the alphabet and there
     * are at most 64 parameters; rejected always with a reason */
    int should = !foreign && letters <= CUDYN_MAX_ARGS;
    if ((rc == 0) != should || (rc != 0 && !err[0]) || (rc == 0 && (size_t)f.n != letters))
        abort();
    for (int i = 0; rc == 0 && i < f.n; i++) {
        int buffer = ARG_IS_BUFFER(f.args[i].kind);
        if (!f.args[i].what || (ARG_IS_SCALAR(f.args[i].kind) && f.args[i].size == 0) || (buffer && !f.has_buffers))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    check_one(s);
    free(s);
    return 0;
}

#ifndef CUDYN_LIBFUZZER
int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 200000;
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    char buf[160];
    for (long it = 0; it < iterations; it++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        size_t n = rng % sizeof buf;
        for (size_t i = 0; i < n; i++) {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            /* mostly valid characters, sometimes any byte */
            buf[i] = (rng >> 8) % 8 ? alphabet[(rng >> 16) % (sizeof alphabet - 1)] : (char)(1 + (rng >> 24) % 255);
        }
        buf[n] = '\0';
        LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
    }
    printf("fuzz_format: %ld formats, every one accepted or refused correctly\n", iterations);
    return 0;
}
#endif
