/*
 * json.h - a small streaming JSON writer for the tools' --json output.
 * It tracks nesting and commas, escapes strings, and writes null for
 * missing values, so every document it writes is valid JSON.
 */
#ifndef CUDYN_TOOLS_JSON_H
#define CUDYN_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
    FILE *out;
    int depth;
    bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *out);
void json_object_begin(struct json *j, const char *key); /* key NULL inside arrays / at top */
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_string(struct json *j, const char *key, const char *value); /* NULL -> null */
void json_int(struct json *j, const char *key, long long value);
void json_uint(struct json *j, const char *key, uint64_t value);
void json_double(struct json *j, const char *key, double value);
void json_bool(struct json *j, const char *key, bool value);
void json_null(struct json *j, const char *key);
/* The value where it is known, else null. */
void json_int_or_null(struct json *j, const char *key, bool known, long long value);
void json_double_or_null(struct json *j, const char *key, bool known, double value);
void json_finish(struct json *j); /* newline after the top-level value */

#endif
