/*
 * expr_args.c - the values a generated kernel is launched with: read after
 * n from a va_list as cudyn_launchf reads them (format_codes.h, through
 * the format the parameter list gave), or taken from a void *[] as
 * cudyn_launch takes them; and the variant choice over their pointers.
 */
#include "config.h"

#include <complex.h>
#include <string.h>

#include "module/args.h"
#include "module/format_codes.h"
#include "module/module.h"
#include "expr/expr.h"

void cudyn__expr_read_va(const struct cudyn__param_list *params, va_list *ap, struct cudyn__expr_values *v)
{
    for (int k = 0; k < params->count; k++) {
        unsigned char *slot = v->slots[k];
        switch (params->p[k].code) {
#define READ_SCALAR(code, stored, promoted, convert)       \
    case code: {                                           \
        stored value = convert(stored, va_arg(*ap, promoted)); \
        memcpy(slot, &value, sizeof value);                \
        break;                                             \
    }
            FORMAT_SCALAR_READS(READ_SCALAR)
#undef READ_SCALAR
        default:
            break;
        }
        v->ptrs[k] = slot;
    }
}

int cudyn__expr_read_array(const char *api, const char *kernel, const char *param_text,
                           const struct cudyn__param_list *params, void **args, int num_args,
                           struct cudyn__expr_values *v)
{
    if (num_args != params->count)
        return cudyn__fail(CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: %s takes %d argument%s (%.300s), not %d", api, kernel, params->count,
                           params->count == 1 ? "" : "s", param_text, num_args);
    if (num_args > 0 && !args)
        return cudyn__fail_arg(api, "args", "must not be NULL when num_args is positive");
    for (int k = 0; k < num_args; k++) {
        if (!args[k])
            return cudyn__fail(CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                               "%s: %s: args[%d] (parameter '%s') points to no value", api, kernel, k,
                               params->p[k].name);
        v->ptrs[k] = args[k];
    }
    return CUDYN_OK;
}

enum cudyn__variant cudyn__expr_variant(bool vector_kernel, int lanes, const struct cudyn__param_list *params,
                                        const struct cudyn__scan *scan, const struct cudyn__expr_values *v, size_t n)
{
    if (!vector_kernel)
        return VARIANT_PLAIN;
    struct cudyn__lane_pointer ptrs[CUDYN_EXPR_MAX_PARAMS];
    int count = 0;
    for (int k = 0; k < params->count; k++) {
        const struct cudyn__param *p = &params->p[k];
        if (!p->pointer)
            continue;
        cudyn_devptr address;
        memcpy(&address, v->ptrs[k], sizeof address);
        ptrs[count++] = (struct cudyn__lane_pointer){address, p->elem_size, scan->used[k], p->writable};
    }
    return cudyn__choose_variant(true, lanes, ptrs, count, n);
}
