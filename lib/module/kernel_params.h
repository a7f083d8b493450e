/*
 * kernel_params.h - the registry of what each kernel takes (kernel_params.c):
 * typed launches check their arguments against it; failed launches name the
 * kernel and its context from it.
 */
#ifndef CUDYN_KERNEL_PARAMS_H
#define CUDYN_KERNEL_PARAMS_H

#include "internal.h"
#include "compile/ptx_interface.h"
#include "module/args.h"

#define PARAMS_UNKNOWN (-1)

/* Who a kernel is, for messages and for telling contexts apart. */
struct cudyn__kernel_identity {
    char name[64];  /* "" if unknown */
    cu_context ctx; /* the context its module was loaded in; NULL if unknown */
};

/* Everything known about one kernel. */
struct cudyn__kernel_facts {
    int count; /* PARAMS_UNKNOWN when neither the driver nor PTX can say */
    size_t sizes[CUDYN_MAX_ARGS];
    enum cudyn__param_class classes[CUDYN_MAX_ARGS];
    cu_module module; /* NULL if unknown */
    struct cudyn__kernel_identity who;
};

/* Records f's facts (cudyn_module_function knows them first hand). */
void cudyn__kernel_register(cudyn_function f, const struct cudyn__kernel_facts *facts);
/* Whether f is registered as a kernel of module (its facts do not change
 * while the module lives). */
bool cudyn__kernel_known(cudyn_function f, cu_module module);
/* Asks the driver about f: sizes and, unless the caller knows them
 * (module not NULL: it looked f up by name in it), its name and module;
 * returns the count of parameters, or PARAMS_UNKNOWN when the driver
 * cannot say.  known_count (-1 if unknown): the count the module's PTX or
 * CUBIN declares, so that the driver is asked about no parameter past the
 * last (probing for the end is the last resort). */
int cudyn__kernel_driver_facts(cudyn_function f, cu_module module, int known_count, struct cudyn__kernel_facts *facts);
/* Combines the driver's count (PARAMS_UNKNOWN if it cannot say; sizes
 * already in facts) with what the PTX declares. */
void cudyn__kernel_merge(struct cudyn__kernel_facts *facts, int driver_count, const struct cudyn__ptx_kernel *ptx);
/* A module was unloaded: its kernels' handles may be reused. */
void cudyn__kernel_forget_module(cu_module module);
/* A context was reset: every handle may be reused. */
void cudyn__kernel_forget_all(void);

/* Checks a typed launch's format against f.  CUDYN_OK with *checked telling
 * whether anything was known to check against, or
 * CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS with the first difference. */
int cudyn__kernel_check(const char *api, cudyn_function f, const struct cudyn__format *fmt, const char *fmt_text,
                        bool *checked);
/* A number that changes whenever anything registered changes: a check
 * that passed stays valid while it is the same (args.c keeps one per
 * thread to skip repeating the check of a hot loop's launches). */
unsigned int cudyn__kernel_epoch(void);
/* Name and context of f, if it is known. */
bool cudyn__kernel_identify(cudyn_function f, struct cudyn__kernel_identity *who);

/* module.c: a reset destroyed every module of ctx. */
void cudyn__module_forget_context(cu_context ctx);
/* module.c: reads the parameters of kernel `name` from the PTX of the cudyn
 * module wrapping `module`, and that module's context; out->count is -1 when
 * there is no such module or no PTX. */
void cudyn__module_ptx_params(cu_module module, const char *name, struct cudyn__ptx_kernel *out, cu_context *ctx);

#endif
