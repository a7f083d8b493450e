/*
 * device_select.c - see device_select.h.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "device_select.h"

static bool starts_with_ci(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (!*s || (*s | 0x20) != (*prefix | 0x20))
            return false;
    return true;
}

/* The PCI id without its domain: "17:00.0". */
static const char *pci_tail(const char *id)
{
    const char *colon = strchr(id, ':');
    return colon && strchr(colon + 1, ':') ? colon + 1 : id;
}

/* The domain as a number, so its width does not matter; -1 if the id has
 * none ("17:00.0" then matches in any domain), -2 if it is not hex. */
static long pci_domain(const char *id)
{
    const char *tail = pci_tail(id);
    if (tail == id)
        return -1;
    char *end;
    long v = strtol(id, &end, 16);
    return end == tail - 1 ? v : -2;
}

bool pci_bus_id_equal(const char *a, const char *b)
{
    long da = pci_domain(a), db = pci_domain(b);
    return strcasecmp(pci_tail(a), pci_tail(b)) == 0 && (da == db || da == -1 || db == -1);
}

static bool all_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

#define DEVICE_SELECT_NONE (-1)
#define DEVICE_SELECT_AMBIGUOUS (-2)

bool device_selector_by_description(const char *sel)
{
    return sel[0] && !all_digits(sel);
}

/* The ordinal, DEVICE_SELECT_NONE or DEVICE_SELECT_AMBIGUOUS. */
static int device_select(const char *sel, const struct cudyn_device_info *const *infos, int n)
{
    /* empty is no device, though it is a prefix of every UUID */
    if (!sel[0])
        return DEVICE_SELECT_NONE;
    /* Digits are an ordinal and nothing else: "2" on a machine with two
     * devices must not pick the one whose UUID happens to start with 2. */
    if (all_digits(sel)) {
        char *end;
        long v = strtol(sel, &end, 10);
        return v < n && strlen(sel) < 10 ? (int)v : DEVICE_SELECT_NONE;
    }
    int found = DEVICE_SELECT_NONE;
    for (int i = 0; i < n; i++) {
        const struct cudyn_device_info *d = infos[i];
        if (!d)
            continue;
        bool match = pci_bus_id_equal(sel, d->pci_bus_id) ||
                     (d->uuid_string[0] &&
                      (starts_with_ci(d->uuid_string, sel) || starts_with_ci(d->uuid_string + 4, sel)));
        if (match) {
            if (found >= 0)
                return DEVICE_SELECT_AMBIGUOUS;
            found = i;
        }
    }
    return found;
}

int device_select_or_fail(const char *sel, const struct cudyn_device_info *const *infos,
                          const struct failure *const *why, int n, struct failure *f)
{
    int found = device_select(sel, infos, n);
    /* A UUID or PCI id that matched nothing may name a device that could
     * not be described: its failure is the one to report.  An ordinal
     * needs no description. */
    int undescribed = -1;
    for (int i = 0; found == DEVICE_SELECT_NONE && device_selector_by_description(sel) && i < n && undescribed < 0; i++)
        if (!infos[i] && why[i] && why[i]->exit_code != EXIT_OK)
            undescribed = i;
    if (undescribed >= 0) {
        *f = *why[undescribed];
        char what[sizeof f->what];
        snprintf(what, sizeof what, "device '%s' not among those described; device %d could not be: %s", sel,
                 undescribed, why[undescribed]->what);
        snprintf(f->what, sizeof f->what, "%s", what);
    } else if (found == DEVICE_SELECT_AMBIGUOUS)
        failure_set(f, EXIT_DEVICE_NOT_FOUND, "device '%s' is ambiguous: it matches several devices' UUIDs", sel);
    else if (found < 0)
        failure_set(f, EXIT_DEVICE_NOT_FOUND,
                    "device '%s' not found: %d device%s visible (ordinals 0..%d); a device is named by its "
                    "ordinal, its UUID or a unique prefix of it, or its PCI bus id",
                    sel, n, n == 1 ? " is" : "s are", n - 1);
    return found;
}
