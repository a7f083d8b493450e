/*
 * mock_eval.h - what the host evaluator's two files share: mock_eval.c
 * recognises the loop of a map kernel and runs it over the elements,
 * mock_expr.c reads and computes the one statement the loop runs for each
 * element.  The rest of the mock sees only mock_eval_of / mock_eval_run
 * (mock.h).
 */
#ifndef CUDYN_MOCK_EVAL_H
#define CUDYN_MOCK_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "mock.h"

/* The C types the evaluator computes with, in the order of the integer
 * promotions (everything below int becomes int). */
enum eval_type { E_BOOL, E_I8, E_U8, E_I16, E_U16, E_I32, E_U32, E_I64, E_U64, E_F32, E_F64, E_NONE };

/* The type a C spelling names ("unsigned int", "signed char" ...), E_NONE
 * for any other (__half, a struct, a typedef); its size in bytes. */
enum eval_type eval_type_of(const char *spelling) MOCK_INTERNAL;
size_t eval_type_size(enum eval_type t) MOCK_INTERNAL;

/* The next token of C text after white space: its start, its length in
 * *len (0 at the end).  Identifiers, numbers, string literals, the two-
 * character operators, else one character. */
const char *eval_token(const char *s, size_t *len) MOCK_INTERNAL;

/* A name the statement may use: an operand (an element of an array, by
 * reference), a scalar parameter or the loop's index i. */
struct eval_name {
    const char *name;
    enum eval_type type;
    bool writable; /* the statement's target; never read (the vector loop does not load it) */
};

struct eval_expr;

/* Reads "TARGET = EXPR" (the text [text, end)) over those names; NULL with
 * the reason in why when the mock cannot compute it exactly.  `ipow`: the
 * kernel's module defines _ops's integer power, which EXPR may then call
 * (cudyn_ipow<U>(base, e)). */
struct eval_expr *eval_expr_parse(const char *text, const char *end, const struct eval_name *names, int n_names,
                                  bool ipow, char *why, size_t cap) MOCK_INTERNAL;
/* Runs the statement with at[k] the bytes of name k; NULL, or what C++
 * leaves undefined there (nothing is stored then). */
const char *eval_expr_run(const struct eval_expr *e, void *const *at) MOCK_INTERNAL;
void eval_expr_free(struct eval_expr *e) MOCK_INTERNAL;

#endif
