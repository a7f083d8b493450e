/*
 * includes.c - the files a compile reads besides its source (see
 * includes.h): a lexer that finds #include lines, the resolution NVRTC
 * applies to them, and the check of a recorded list against the disk.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "compile/includes.h"
#include "compile/libc_headers.h"
#include "compile/options.h"

/* ------------------------------------------------------------- lexing */

struct lexer {
    cudyn__include_fn fn;
    void *ctx;
    bool unknowable;
    bool stopped;
};

/* The text with every backslash-newline removed (translation phase 2), so
 * a directive or comment split over lines is seen whole. */
static char *join_lines(const char *text, size_t n, size_t *out_n)
{
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\\' && i + 1 < n && text[i + 1] == '\n') {
            i++;
            continue;
        }
        if (text[i] == '\\' && i + 2 < n && text[i + 1] == '\r' && text[i + 2] == '\n') {
            i += 2;
            continue;
        }
        s[m++] = text[i];
    }
    s[m] = '\0';
    *out_n = m;
    return s;
}

static bool ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

static bool ident_char(char c)
{
    return ident_start(c) || isdigit((unsigned char)c);
}

static size_t skip_line_comment(const char *s, size_t n, size_t i)
{
    while (i < n && s[i] != '\n')
        i++;
    return i;
}

static size_t skip_block_comment(const char *s, size_t n, size_t i)
{
    for (i += 2; i + 1 < n; i++)
        if (s[i] == '*' && s[i + 1] == '/')
            return i + 2;
    return n;
}

/* "..." or '...': ends at the closing quote, or at the line's end. */
static size_t skip_literal(const char *s, size_t n, size_t i)
{
    char quote = s[i];
    for (i++; i < n && s[i] != '\n'; i++) {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] != '\n')
            i++;
        else if (s[i] == quote)
            return i + 1;
    }
    return i;
}

/* R"delim( ... )delim", which may span lines. */
static size_t skip_raw_string(const char *s, size_t n, size_t i)
{
    size_t open = i + 1;
    while (open < n && s[open] != '(' && open - i <= 17)
        open++;
    if (open >= n || s[open] != '(')
        return skip_literal(s, n, i);
    size_t delim = open - i - 1;
    for (size_t j = open + 1; j + delim + 1 < n; j++)
        if (s[j] == ')' && memcmp(s + j + 1, s + i + 1, delim) == 0 && s[j + delim + 1] == '"')
            return j + delim + 2;
    return n;
}

/* A pp-number, with digit separators (1'000) and exponent signs. */
static size_t skip_number(const char *s, size_t n, size_t i)
{
    for (i++; i < n; i++) {
        char c = s[i], prev = s[i - 1];
        if (ident_char(c) || c == '.' || (c == '\'' && i + 1 < n && ident_char(s[i + 1])) ||
            ((c == '+' || c == '-') && strchr("eEpP", prev)))
            continue;
        break;
    }
    return i;
}

/* An identifier: a string prefix (u8"", R"()"), or __has_include. */
static size_t identifier(struct lexer *L, const char *s, size_t n, size_t i)
{
    size_t start = i;
    while (i < n && ident_char(s[i]))
        i++;
    size_t len = i - start;
    if (i < n && (s[i] == '"' || s[i] == '\'')) {
        static const char *const prefixes[] = {"L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R"};
        for (size_t p = 0; p < sizeof prefixes / sizeof prefixes[0]; p++)
            if (strlen(prefixes[p]) == len && memcmp(s + start, prefixes[p], len) == 0)
                return s[i] == '"' && s[i - 1] == 'R' ? skip_raw_string(s, n, i) : skip_literal(s, n, i);
    }
    if ((len == 13 && memcmp(s + start, "__has_include", 13) == 0) ||
        (len == 18 && memcmp(s + start, "__has_include_next", 18) == 0))
        L->unknowable = true;
    return i;
}

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v'))
            i++;
        if (i + 1 < n && s[i] == '/' && s[i + 1] == '*')
            i = skip_block_comment(s, n, i);
        else
            return i;
    }
}

/* After a line's leading '#': an include hands its name to L->fn. */
static size_t directive(struct lexer *L, const char *s, size_t n, size_t i)
{
    i = skip_blanks(s, n, i);
    size_t start = i;
    while (i < n && ident_char(s[i]))
        i++;
    size_t len = i - start;
    static const char *const includes[] = {"include", "include_next", "import"};
    bool is_include = false;
    for (size_t k = 0; k < sizeof includes / sizeof includes[0]; k++)
        is_include |= strlen(includes[k]) == len && memcmp(s + start, includes[k], len) == 0;
    if (!is_include)
        return i;
    i = skip_blanks(s, n, i);
    if (i >= n || s[i] == '\n')
        return i; /* "#include" alone: NVRTC reports it */
    if (s[i] != '"' && s[i] != '<') {
        L->unknowable = true; /* #include MACRO */
        return i;
    }
    char close = s[i] == '"' ? '"' : '>';
    size_t end = i + 1;
    while (end < n && s[end] != close && s[end] != '\n')
        end++;
    if (end >= n || s[end] != close || end == i + 1)
        return end; /* malformed: NVRTC reports it */
    if (L->fn(L->ctx, close == '"', s + i + 1, end - i - 1) != 0)
        L->stopped = true;
    return end + 1;
}

static void lex(struct lexer *L, const char *s, size_t n)
{
    bool line_start = true;
    for (size_t i = 0; i < n && !L->stopped;) {
        char c = s[i];
        if (c == '\n') {
            line_start = true;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            i = skip_line_comment(s, n, i);
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            i = skip_block_comment(s, n, i); /* a comment is a space: the line start stays */
        } else if (c == '#' && line_start) {
            i = directive(L, s, n, i + 1);
            line_start = false;
        } else {
            line_start = false;
            if (c == '"' || c == '\'')
                i = skip_literal(s, n, i);
            else if (isdigit((unsigned char)c) || (c == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1])))
                i = skip_number(s, n, i);
            else if (ident_start(c))
                i = identifier(L, s, n, i);
            else
                i++;
        }
    }
}

int cudyn__includes_list(const char *text, size_t n, cudyn__include_fn fn, void *ctx)
{
    size_t m = 0;
    char *joined = join_lines(text, n, &m);
    if (!joined)
        return -1;
    struct lexer L = {fn, ctx, false, false};
    lex(&L, joined, m);
    free(joined);
    if (L.stopped)
        return -1;
    return L.unknowable ? 1 : 0;
}

/* ------------------------------------------------------ the dep list */

int cudyn__deps_add(struct cudyn__deps *deps, const struct cudyn__dep *dep)
{
    if (deps->n == deps->cap) {
        size_t cap = deps->cap ? 2 * deps->cap : 16;
        struct cudyn__dep *v = realloc(deps->v, cap * sizeof *v);
        if (!v)
            return -1;
        deps->v = v;
        deps->cap = cap;
    }
    char *path = strdup(dep->path);
    if (!path)
        return -1;
    deps->v[deps->n] = *dep;
    deps->v[deps->n++].path = path;
    return 0;
}

int cudyn__deps_copy(struct cudyn__deps *dst, const struct cudyn__deps *src)
{
    memcpy(dst->uncacheable, src->uncacheable, sizeof dst->uncacheable);
    dst->uses_toolkit = src->uses_toolkit;
    for (size_t i = 0; i < src->n; i++)
        if (cudyn__deps_add(dst, &src->v[i]) != 0) {
            cudyn__deps_free(dst);
            return -1;
        }
    return 0;
}

void cudyn__deps_free(struct cudyn__deps *deps)
{
    for (size_t i = 0; i < deps->n; i++)
        free(deps->v[i].path);
    free(deps->v);
    memset(deps, 0, sizeof *deps);
}

static int64_t nanoseconds(struct timespec t)
{
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void set_identity(struct cudyn__dep *d, const struct stat *st)
{
    d->dev = (uint64_t)st->st_dev;
    d->ino = (uint64_t)st->st_ino;
    d->size = (uint64_t)st->st_size;
    d->mtime_ns = nanoseconds(st->st_mtim);
    d->ctime_ns = nanoseconds(st->st_ctim);
}

static bool same_identity(const struct cudyn__dep *d, const struct stat *st)
{
    struct cudyn__dep now;
    set_identity(&now, st);
    return now.dev == d->dev && now.ino == d->ino && now.size == d->size && now.mtime_ns == d->mtime_ns &&
           now.ctime_ns == d->ctime_ns;
}

/* Reads a regular file of at most CUDYN_MAX_HEADER_BYTES: its identity (of
 * the file actually read), hash and, if text is not NULL, its contents.
 * 0 ok; 1 not a regular file, too large or unreadable; -1 out of memory. */
static int read_file(const char *path, struct cudyn__dep *d, char **text, size_t *n)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > CUDYN_MAX_HEADER_BYTES) {
        if (fd >= 0)
            close(fd);
        return 1;
    }
    size_t size = (size_t)st.st_size;
    char *buf = cudyn__read_whole(fd, size, 1); /* NUL-terminated */
    int e = errno;
    close(fd);
    if (!buf)
        return e == ENOMEM ? -1 : 1;
    set_identity(d, &st);
    d->present = true;
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, buf, size);
    cudyn__sha256_final(&h, d->sha256);
    if (text) {
        *text = buf;
        *n = size;
    } else {
        free(buf);
    }
    return 0;
}

/* ---------------------------------------------------------- checking */

/* One recorded dependency against the disk: 0 current, 1 stale. */
static int check_one(struct cudyn__dep *d, bool *refreshed)
{
    struct stat st;
    bool exists = stat(d->path, &st) == 0;
    if (!d->present) {
        if (exists)
            cudyn__debug("cache: %s appeared and would be included instead; recompiling", d->path);
        return exists;
    }
    if (!exists) {
        cudyn__debug("cache: included file %s is gone; recompiling", d->path);
        return 1;
    }
    if (same_identity(d, &st))
        return 0;
    struct cudyn__dep now = *d;
    if (read_file(d->path, &now, NULL, NULL) != 0 || memcmp(now.sha256, d->sha256, sizeof d->sha256) != 0) {
        cudyn__debug("cache: included file %s changed; recompiling", d->path);
        return 1;
    }
    *d = now; /* same contents, new identity (touched, copied back) */
    *refreshed = true;
    return 0;
}

int cudyn__deps_check(struct cudyn__deps *deps, bool *refreshed)
{
    *refreshed = false;
    for (size_t i = 0; i < deps->n; i++)
        if (check_one(&deps->v[i], refreshed) != 0)
            return 1;
    return 0;
}

/* ----------------------------------------------------------- scanning */

/* A text waiting to be read for includes. */
struct pending {
    const char *text;
    size_t n;
    char *owned; /* file contents to free, or NULL */
    char *dir;   /* its directory, for "..." includes ("" = working directory) */
};

struct scan {
    const struct cudyn__include_env *env;
    struct cudyn__deps *out;
    const char **dirs; /* -I directories, in order */
    bool *dir_is_toolkit;
    int n_dirs;
    struct stat *toolkit_dirs; /* env's, as found (st_mode 0: missing) */
    bool source_dir; /* "..." searches the includer's directory */
    bool *header_queued;
    bool libc_queued[CUDYN_LIBC_HEADERS_MAX];
    struct pending *queue;
    size_t queued, cap, next;
    const char *current_dir;
    bool oom;
};

static void uncacheable(struct scan *S, const char *fmt, ...) CUDYN_PRINTF(2, 3);
static void uncacheable(struct scan *S, const char *fmt, ...)
{
    if (S->out->uncacheable[0])
        return; /* the first reason is the one to tell */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S->out->uncacheable, sizeof S->out->uncacheable, fmt, ap);
    va_end(ap);
}

/* The directory part of a path: "" for a bare name, "/" for the root. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup("");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

/* dir/name as NVRTC forms it; a relative dir stays relative. */
static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p)
        snprintf(p, a + b + 2, "%s%s%s", dir, a && dir[a - 1] != '/' ? "/" : "", name);
    return p;
}

static void enqueue(struct scan *S, const char *text, size_t n, char *owned, char *dir)
{
    if (dir && S->queued == S->cap) {
        size_t cap = S->cap ? 2 * S->cap : 16;
        struct pending *q = realloc(S->queue, cap * sizeof *q);
        if (q) {
            S->queue = q;
            S->cap = cap;
        }
    }
    if (!dir || S->queued == S->cap) {
        free(owned);
        free(dir);
        S->oom = true;
        return;
    }
    S->queue[S->queued++] = (struct pending){text, n, owned, dir};
}

static const struct cudyn__dep *recorded(const struct scan *S, const char *path)
{
    for (size_t i = 0; i < S->out->n; i++)
        if (strcmp(S->out->v[i].path, path) == 0)
            return &S->out->v[i];
    return NULL;
}

/* A candidate that does not exist, recorded: a file appearing there
 * would be included instead. */
static void record_missing(struct scan *S, const char *path)
{
    if (recorded(S, path))
        return;
    if (S->out->n >= CUDYN_MAX_DEPS) {
        uncacheable(S, "it includes more than %d files", CUDYN_MAX_DEPS);
        return;
    }
    struct cudyn__dep d = {.path = (char *)path};
    S->oom |= cudyn__deps_add(S->out, &d) != 0;
}

/* One candidate path: true when the search stops here (found, or it
 * cannot be tracked). */
static bool try_candidate(struct scan *S, const char *path)
{
    const struct cudyn__dep *seen = recorded(S, path);
    if (seen)
        return seen->present;
    struct stat st;
    if (stat(path, &st) != 0) {
        record_missing(S, path);
        return false;
    }
    if (S->out->n >= CUDYN_MAX_DEPS) {
        uncacheable(S, "it includes more than %d files", CUDYN_MAX_DEPS);
        return true;
    }
    struct cudyn__dep d = {.path = (char *)path};
    char *text = NULL;
    size_t n = 0;
    int rc = read_file(path, &d, &text, &n);
    if (rc != 0) {
        S->oom |= rc < 0;
        uncacheable(S, "%s is not a readable regular file of at most 64 MiB", path);
        return true;
    }
    S->oom |= cudyn__deps_add(S->out, &d) != 0;
    enqueue(S, text, n, text, dir_of(path));
    return true;
}

static bool try_in(struct scan *S, const char *dir, const char *name)
{
    char *path = join(dir, name);
    if (!path) {
        S->oom = true;
        return true;
    }
    bool stop = try_candidate(S, path);
    free(path);
    return stop;
}

/* name in one directory of the search; true when the search stops.  A
 * toolkit directory that has the file ends it there, untracked (the
 * compile depends on the toolkit); one that has not is a missing
 * candidate as any other. */
static bool search_in(struct scan *S, const char *dir, bool toolkit, const char *name)
{
    if (!toolkit)
        return try_in(S, dir, name);
    char *path = join(dir, name);
    if (!path) {
        S->oom = true;
        return true;
    }
    struct stat st;
    bool found = stat(path, &st) == 0;
    if (found)
        S->out->uses_toolkit = true;
    else
        record_missing(S, path);
    free(path);
    return found;
}

/* The -I directories in order, then cudyn's toolkit directories: NVRTC's
 * order.  Found nowhere, the compile depends on the toolkit: NVRTC's own
 * header (or a failure), which a toolkit header of the name would shadow. */
static void search_path(struct scan *S, const char *name)
{
    const struct cudyn__include_env *env = S->env;
    for (int i = 0; i < S->n_dirs; i++)
        if (search_in(S, S->dirs[i], S->dir_is_toolkit[i], name))
            return;
    for (int i = 0; i < env->num_toolkit_dirs; i++)
        if (search_in(S, env->toolkit_dirs[i], true, name))
            return;
    S->out->uses_toolkit = true;
}

/* Resolves one include the way NVRTC does (includes.h), recording what
 * it finds and what it finds missing. */
static int on_include(void *ctx, bool quoted, const char *name_text, size_t len)
{
    struct scan *S = ctx;
    char name[4096];
    if (len >= sizeof name) {
        uncacheable(S, "an #include name is longer than %zu bytes", sizeof name - 1);
        return 1;
    }
    memcpy(name, name_text, len);
    name[len] = '\0';
    const struct cudyn__include_env *env = S->env;
    for (int h = 0; h < env->num_headers; h++)
        if (strcmp(env->header_names[h], name) == 0) {
            if (!S->header_queued[h]) {
                S->header_queued[h] = true;
                enqueue(S, env->header_sources[h], strlen(env->header_sources[h]), NULL, dir_of(name));
            }
            return S->oom;
        }
    const struct cudyn__libc_header *libc = cudyn__libc_header(name);
    if (libc && !cudyn__header_on_path(env->options, env->num_options, name)) {
        /* NVRTC is given cudyn's text (part of the key), read for what it
         * includes; a file of the name appearing in any -I directory would
         * be given instead */
        for (int i = 0; i < S->n_dirs && !S->oom; i++) {
            char *path = join(S->dirs[i], name);
            if (path)
                record_missing(S, path);
            S->oom |= !path;
            free(path);
        }
        size_t k = (size_t)(libc - cudyn__libc_headers);
        if (!S->libc_queued[k]) {
            S->libc_queued[k] = true;
            enqueue(S, libc->text, strlen(libc->text), NULL, strdup(""));
        }
        return S->oom || S->out->uncacheable[0];
    }
    if (name[0] == '/')
        try_candidate(S, name);
    else if (!(quoted && S->source_dir && try_in(S, S->current_dir, name)))
        search_path(S, name);
    return S->oom || S->out->uncacheable[0];
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Whether st is one of cudyn's toolkit include directories. */
static bool is_toolkit_dir(const struct scan *S, const struct stat *st)
{
    for (int i = 0; i < S->env->num_toolkit_dirs; i++)
        if (S->toolkit_dirs[i].st_mode && same_file(st, &S->toolkit_dirs[i]))
            return true;
    return false;
}

/* The include path and switches of the options. */
static int read_options(struct scan *S)
{
    const struct cudyn__include_env *env = S->env;
    struct stat st;
    S->dirs = calloc((size_t)env->num_options + 1, sizeof *S->dirs);
    S->dir_is_toolkit = calloc((size_t)env->num_options + 1, sizeof *S->dir_is_toolkit);
    S->header_queued = calloc((size_t)env->num_headers + 1, sizeof *S->header_queued);
    S->toolkit_dirs = calloc((size_t)env->num_toolkit_dirs + 1, sizeof *S->toolkit_dirs);
    if (!S->dirs || !S->dir_is_toolkit || !S->header_queued || !S->toolkit_dirs)
        return -1;
    for (int i = 0; i < env->num_toolkit_dirs; i++)
        if (stat(env->toolkit_dirs[i], &S->toolkit_dirs[i]) != 0)
            memset(&S->toolkit_dirs[i], 0, sizeof S->toolkit_dirs[i]);
    struct cudyn__option o;
    for (int i = 0; i < env->num_options; i += o.used) {
        if (cudyn__option_read(env->options, env->num_options, i, &o) != 0)
            break; /* validated by the caller */
        if (o.kind == OPTION_INCLUDE_PATH) {
            S->dir_is_toolkit[S->n_dirs] = stat(o.value, &st) == 0 && is_toolkit_dir(S, &st);
            S->dirs[S->n_dirs++] = o.value;
        } else if (o.kind == OPTION_NO_SOURCE_INCLUDE) {
            S->source_dir = false;
        } else if (o.kind == OPTION_SIDE_FILES) {
            uncacheable(S, "option %s reads or writes files besides the source", o.name);
        }
    }
    return 0;
}

/* Pre-included headers, as if the source began with #include "...". */
static void pre_includes(struct scan *S)
{
    const struct cudyn__include_env *env = S->env;
    struct cudyn__option o;
    for (int i = 0; i < env->num_options && !S->oom; i += o.used)
        if (cudyn__option_read(env->options, env->num_options, i, &o) == 0 && o.kind == OPTION_PRE_INCLUDE && o.value)
            on_include(S, true, o.value, strlen(o.value));
}

int cudyn__deps_scan(const char *source, const struct cudyn__include_env *env, struct cudyn__deps *out)
{
    memset(out, 0, sizeof *out);
    struct scan S = {.env = env, .out = out, .source_dir = true};
    if (read_options(&S) != 0)
        S.oom = true;
    enqueue(&S, source, strlen(source), NULL, dir_of(env->name));
    if (!S.oom) {
        S.current_dir = S.queue[0].dir;
        pre_includes(&S);
    }
    for (; S.next < S.queued && !S.oom && !out->uncacheable[0]; S.next++) {
        struct pending p = S.queue[S.next];
        S.current_dir = p.dir;
        int rc = cudyn__includes_list(p.text, p.n, on_include, &S);
        if (rc == 1)
            uncacheable(&S, "%s", "it has a computed #include or __has_include");
        S.oom |= rc < 0 && !out->uncacheable[0];
    }
    for (size_t i = 0; i < S.queued; i++) {
        free(S.queue[i].owned);
        free(S.queue[i].dir);
    }
    free(S.queue);
    free(S.dirs);
    free(S.dir_is_toolkit);
    free(S.toolkit_dirs);
    free(S.header_queued);
    if (S.oom) {
        cudyn__deps_free(out);
        return -1;
    }
    return 0;
}
