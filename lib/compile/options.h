/*
 * options.h - how NVRTC reads an option list: which options take a value,
 * in which spellings, and which of them matter to cudyn (the target, the
 * include path, files read or written besides the source).  One table
 * (options.c), used to validate the caller's options, to find a forced
 * target and to know where #include looks.
 */
#ifndef CUDYN_OPTIONS_H
#define CUDYN_OPTIONS_H

/* What an option means to cudyn. */
enum cudyn__option_kind {
    OPTION_OTHER,             /* passed to NVRTC, nothing else to know */
    OPTION_ARCH,              /* --gpu-architecture / -arch: the target */
    OPTION_INCLUDE_PATH,      /* --include-path / -I: a directory #include searches */
    OPTION_PRE_INCLUDE,       /* --pre-include / -include: a header read before the source */
    OPTION_NO_SOURCE_INCLUDE, /* "..." includes do not search the including file's directory */
    OPTION_SIDE_FILES         /* reads or writes a file besides the source (PCH, timing) */
};

struct cudyn__option {
    enum cudyn__option_kind kind;
    const char *name;  /* the option as the table spells it, for messages */
    const char *value; /* its value, or NULL for an option without one */
    int used;          /* strings it takes: 1, or 2 when the value is the next string */
};

/*
 * Reads options[i].  Returns 0 and fills *out, or -1 when the option takes
 * a value and none follows (a bare "-I" at the end of the list); out->name
 * then names it.  NVRTC's spellings: "--include-path=DIR", "--include-path"
 * "DIR", and for the one-letter options -I, -D, -U also "-IDIR", "-I=DIR"
 * and "-I DIR" in one string.
 */
int cudyn__option_read(const char *const *options, int n, int i, struct cudyn__option *out);

/* The architecture named by an option list (the last --gpu-architecture /
 * -arch wins, as with nvcc), or NULL. */
const char *cudyn__forced_target(const char *const *options, int num_options);

#endif
