/*
 * calls.h - what the mock libcuda (mock_core.c) and the mock NVRTC
 * (nvrtc/mock_nvrtc.c) do alike with the calls of their exported
 * functions: count them, fail chosen ones (MOCK_CUDA_FAIL /
 * MOCK_NVRTC_FAIL, "fn:N:code,...") and write the counts at exit
 * (MOCK_CUDA_COUNTS / MOCK_NVRTC_COUNTS, which tests/fault-sweep.sh reads).
 * The two are separate libraries, so this is a header of static functions
 * that each compiles in.  Each mock keeps its own lock, messages and result
 * type: codes are kept as int, which holds a CUresult and an nvrtcResult.
 */
#ifndef CUDYN_MOCK_CALLS_H
#define CUDYN_MOCK_CALLS_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLS_MAX_FUNCTIONS 256
#define CALLS_MAX_RULES 256

struct fail_rule {
    char fn[64];
    long nth; /* 0: every call */
    int code;
};

struct counter {
    char fn[64];
    long calls;
};

/* Calls counted per function (the mock's lock guards them) and the fail
 * rules, read once at setup. */
struct calls {
    struct counter counters[CALLS_MAX_FUNCTIONS];
    int n_counters;
    struct fail_rule rules[CALLS_MAX_RULES];
    int n_rules;
};

/* s, all of it, as a decimal number in [min, max]. */
static inline bool mock_parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/* Adds the rules of a fail setting, "fn:N:code,...": the Nth call of fn
 * (1-based; * = every call) returns code (1 to max_code).  False if an item
 * does not read so or there are more than CALLS_MAX_RULES; the items that
 * do are added all the same. */
static inline bool calls_add_rules(struct calls *c, const char *spec, long max_code)
{
    char *buf = strdup(spec);
    if (!buf)
        return false;
    bool ok = true;
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char fn[64], nth[32], code[32];
        long n = 0, value;
        if (c->n_rules == CALLS_MAX_RULES || sscanf(item, "%63[^:]:%31[^:]:%31s", fn, nth, code) != 3 ||
            (strcmp(nth, "*") != 0 && !mock_parse_long(nth, 1, 1L << 30, &n)) ||
            !mock_parse_long(code, 1, max_code, &value)) {
            ok = false;
            continue;
        }
        struct fail_rule *r = &c->rules[c->n_rules++];
        snprintf(r->fn, sizeof r->fn, "%s", fn);
        r->nth = n;
        r->code = (int)value;
    }
    free(buf);
    return ok;
}

/* Counts a call of fn; its number (1: the first), or 0 once the table is
 * full.  Lock held. */
static inline long calls_count(struct calls *c, const char *fn)
{
    int i = 0;
    while (i < c->n_counters && strcmp(c->counters[i].fn, fn) != 0)
        i++;
    if (i == CALLS_MAX_FUNCTIONS)
        return 0;
    if (i == c->n_counters) {
        snprintf(c->counters[i].fn, sizeof c->counters[i].fn, "%s", fn);
        c->n_counters++;
    }
    return ++c->counters[i].calls;
}

/* The code a fail rule gives the nth call of fn, or 0. */
static inline int calls_rule_code(const struct calls *c, const char *fn, long nth)
{
    for (int r = 0; r < c->n_rules; r++)
        if (strcmp(c->rules[r].fn, fn) == 0 && (c->rules[r].nth == 0 || c->rules[r].nth == nth))
            return c->rules[r].code;
    return 0;
}

/* Calls of fn so far; of every function when fn is NULL.  Lock held. */
static inline long calls_of(const struct calls *c, const char *fn)
{
    long n = 0;
    for (int i = 0; i < c->n_counters; i++)
        if (!fn || strcmp(c->counters[i].fn, fn) == 0)
            n += c->counters[i].calls;
    return n;
}

/* For a destructor: when the environment variable `setting` names a file,
 * writes "fn calls" there for every function called, one a line, so a
 * fault-injection sweep learns which calls a run makes without changing
 * the program it runs.  `who` starts the message if it cannot. */
static inline void calls_write(const struct calls *c, pthread_mutex_t *lock, const char *setting, const char *who)
{
    const char *path = getenv(setting);
    if (!path || !path[0])
        return;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: %s: cannot write %s\n", who, setting, path);
        return;
    }
    pthread_mutex_lock(lock);
    for (int i = 0; i < c->n_counters; i++)
        fprintf(f, "%s %ld\n", c->counters[i].fn, c->counters[i].calls);
    pthread_mutex_unlock(lock);
    fclose(f);
}

#endif
