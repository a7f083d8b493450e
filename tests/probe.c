/*
 * probe.c - runs cudyn calls named on the command line and prints what
 * happened, one "key=value" line each, for the shell tests that need a
 * fresh process per environment (loader search, dispatch per driver).
 *
 *   probe [preload=PATH] [init=FLAGS] info | has=NAME | proc=NAME@VER |
 *         copy | event | meminfo | calls=FN | requests | count
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudyn.h"
#include "mock/mock_control.h"

static void print_error(const char *what, int st)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    printf("%s=%s\n", what, cudyn_status_name(st));
    if (st != CUDYN_OK)
        printf("%s.message=%s\n%s.function=%s\n", what, e.message, what, e.function);
}

static void info(void)
{
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    printf("driver_status=%s\ninit_status=%s\n", cudyn_status_name(l.driver_status), cudyn_status_name(l.init_status));
    printf("driver_path=%s\ndriver_found_by=%s\ndriver_version=%d\n", l.driver_path ? l.driver_path : "",
           l.driver_found_by ? l.driver_found_by : "", l.driver_version);
    printf("entry_mechanism=%d\nsymbols_bound=%d\nsymbols_missing=%d\nper_thread_stream=%d\n", l.entry_mechanism,
           l.symbols_bound, l.symbols_missing, l.per_thread_stream);
    printf("nvrtc_status=%s\nnvrtc_version=%d\n", cudyn_status_name(l.nvrtc_status), l.nvrtc_version);
    printf("--- driver trace\n%s--- end\n", l.driver_trace ? l.driver_trace : "");
    if (l.driver_status != CUDYN_OK)
        print_error("load", l.driver_status);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "preload=", 8) == 0) {
            printf("preload=%s\n", dlopen(a + 8, RTLD_NOW | RTLD_GLOBAL) ? "ok" : dlerror());
        } else if (strncmp(a, "init=", 5) == 0) {
            print_error("init", cudyn_init((unsigned)strtoul(a + 5, NULL, 0)));
        } else if (strcmp(a, "info") == 0) {
            info();
        } else if (strncmp(a, "has=", 4) == 0) {
            printf("has.%s=%d\n", a + 4, cudyn_has(a + 4));
        } else if (strncmp(a, "proc=", 5) == 0) {
            char name[128];
            int version = 0;
            if (sscanf(a + 5, "%127[^@]@%d", name, &version) != 2)
                return 2;
            void *fn = cudyn_driver_proc(name, version);
            printf("proc.%s@%d=%s\n", name, version, fn ? "found" : "null");
            if (!fn)
                print_error("proc", cudyn_last_error(NULL));
        } else if (strcmp(a, "copy") == 0) {
            cudyn_devptr d = 0;
            char in[64] = "through the device and back", out[64] = "";
            int st = cudyn_mem_alloc(&d, sizeof in);
            if (st == CUDYN_OK)
                st = cudyn_memcpy_htod(d, in, sizeof in);
            if (st == CUDYN_OK)
                st = cudyn_memcpy_dtoh(out, d, sizeof out);
            cudyn_mem_free(d);
            print_error("copy", st);
            printf("copy.roundtrip=%d\n", strcmp(in, out) == 0);
        } else if (strcmp(a, "event") == 0) {
            cudyn_event e0 = NULL, e1 = NULL;
            float ms = -1;
            int st = cudyn_event_create(&e0, 0);
            if (st == CUDYN_OK)
                st = cudyn_event_create(&e1, 0);
            if (st == CUDYN_OK)
                st = cudyn_event_record(e0, NULL);
            if (st == CUDYN_OK)
                st = cudyn_event_record(e1, NULL);
            if (st == CUDYN_OK)
                st = cudyn_event_elapsed_ms(&ms, e0, e1);
            if (e0)
                cudyn_event_destroy(e0);
            if (e1)
                cudyn_event_destroy(e1);
            print_error("event", st);
        } else if (strncmp(a, "calls=", 6) == 0) {
            printf("calls.%s=%ld\n", a + 6, mock_call_count(a + 6));
        } else if (strcmp(a, "requests") == 0) {
            printf("requests=%s\n", mock_requests());
        } else if (strcmp(a, "meminfo") == 0) {
            size_t free_bytes = 0, total = 0;
            print_error("meminfo", cudyn_mem_info(&free_bytes, &total));
        } else if (strcmp(a, "count") == 0) {
            int n = -1;
            print_error("count", cudyn_device_count(&n));
            printf("count.devices=%d\n", n);
        } else {
            fprintf(stderr, "probe: unknown action '%s'\n", a);
            return 2;
        }
    }
    return 0;
}
