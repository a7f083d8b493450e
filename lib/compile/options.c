/*
 * options.c - NVRTC's option syntax (see options.h), as one table.
 *
 * The rows that take a value are those NVRTC 13.0 reads the next string
 * for when the option is given bare (checked against it: a bare "-I"
 * silently took cudyn's own --gpu-architecture as its directory).  Options
 * that accept a value only after '=' are marked so: NVRTC rejects them
 * bare instead of taking the next string.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "compile/options.h"

enum value_form {
    NO_VALUE,   /* a switch */
    VALUE,      /* "--opt=V" or "--opt" "V" */
    VALUE_EQ    /* "--opt=V" only */
};

static const struct {
    const char *long_name, *short_name;
    enum value_form form;
    enum cudyn__option_kind kind;
} option_table[] = {
    {"--gpu-architecture", "-arch", VALUE, OPTION_ARCH},
    {"--include-path", "-I", VALUE, OPTION_INCLUDE_PATH},
    {"--pre-include", "-include", VALUE, OPTION_PRE_INCLUDE},
    {"--no-source-include", "-no-source-include", NO_VALUE, OPTION_NO_SOURCE_INCLUDE},
    {"--define-macro", "-D", VALUE, OPTION_OTHER},
    {"--undefine-macro", "-U", VALUE, OPTION_OTHER},
    {"--ptxas-options", "-Xptxas", VALUE, OPTION_OTHER},
    {"--maxrregcount", "-maxrregcount", VALUE, OPTION_OTHER},
    {"--split-compile", "-split-compile", VALUE, OPTION_OTHER},
    {"--Ofast-compile", "-Ofc", VALUE, OPTION_OTHER},
    {"--dopt", "-dopt", VALUE, OPTION_OTHER},
    {"--ftz", "-ftz", VALUE, OPTION_OTHER},
    {"--fmad", "-fmad", VALUE, OPTION_OTHER},
    {"--prec-div", "-prec-div", VALUE, OPTION_OTHER},
    {"--prec-sqrt", "-prec-sqrt", VALUE, OPTION_OTHER},
    {"--relocatable-device-code", "-rdc", VALUE, OPTION_OTHER},
    {"--diag-error", "-diag-error", VALUE, OPTION_OTHER},
    {"--diag-suppress", "-diag-suppress", VALUE, OPTION_OTHER},
    {"--diag-warn", "-diag-warn", VALUE, OPTION_OTHER},
    {"--jump-table-density", "-jtd", VALUE, OPTION_OTHER},
    {"--device-stack-protector", "-device-stack-protector", VALUE, OPTION_OTHER},
    {"--builtin-move-forward", "-builtin-move-forward", VALUE, OPTION_OTHER},
    {"--builtin-initializer-list", "-builtin-initializer-list", VALUE, OPTION_OTHER},
    {"--modify-stack-limit", "-modify-stack-limit", VALUE, OPTION_OTHER},
    {"--brief-diagnostics", "-brief-diag", VALUE, OPTION_OTHER},
    {"--pch-messages", "-pch-messages", VALUE, OPTION_OTHER},
    {"--pch-verbose", "-pch-verbose", VALUE, OPTION_OTHER},
    {"--instantiate-templates-in-pch", "-instantiate-templates-in-pch", VALUE, OPTION_OTHER},
    /* a cached kernel would skip these files: not cacheable */
    {"--create-pch", "-create-pch", VALUE_EQ, OPTION_SIDE_FILES},
    {"--use-pch", "-use-pch", VALUE_EQ, OPTION_SIDE_FILES},
    {"--time", "-time", VALUE_EQ, OPTION_SIDE_FILES},
    {"--fdevice-time-trace", "-fdevice-time-trace", VALUE_EQ, OPTION_SIDE_FILES},
};

#define N_ROWS (sizeof option_table / sizeof option_table[0])

/* "-I", "-D", "-U": the value may follow in the same string. */
static bool one_letter(const char *name)
{
    return name[0] == '-' && name[1] && !name[2];
}

/* How opt spells `name`: 0 not at all, 1 bare, 2 with a value (in *value). */
static int spelled(const char *opt, const char *name, bool attached, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(opt, name, n) != 0)
        return 0;
    const char *rest = opt + n;
    if (*rest == '=') {
        *value = rest + 1;
        return 2;
    }
    if (!attached)
        return *rest ? 0 : 1;
    while (*rest == ' ')
        rest++;
    if (!*rest)
        return 1;
    *value = rest;
    return 2;
}

int cudyn__option_read(const char *const *options, int n, int i, struct cudyn__option *out)
{
    const char *opt = options[i];
    *out = (struct cudyn__option){OPTION_OTHER, opt, NULL, 1};
    for (size_t r = 0; r < N_ROWS; r++) {
        const char *value = NULL;
        int how = spelled(opt, option_table[r].long_name, false, &value);
        if (!how)
            how = spelled(opt, option_table[r].short_name, one_letter(option_table[r].short_name), &value);
        if (!how)
            continue;
        out->kind = option_table[r].kind;
        out->name = how == 1 ? opt : option_table[r].long_name;
        if (how == 2 || option_table[r].form != VALUE) {
            out->value = value;
            return 0;
        }
        if (i + 1 >= n)
            return -1; /* the value is missing */
        out->value = options[i + 1];
        out->used = 2;
        return 0;
    }
    return 0;
}

const char *cudyn__forced_target(const char *const *options, int num_options)
{
    const char *found = NULL;
    struct cudyn__option o;
    for (int i = 0; options && i < num_options; i += o.used) {
        if (!options[i]) {
            o.used = 1;
            continue;
        }
        if (cudyn__option_read(options, num_options, i, &o) != 0)
            break;
        if (o.kind == OPTION_ARCH && o.value)
            found = o.value; /* the last one wins, as with nvcc */
    }
    return found;
}
