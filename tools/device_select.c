/*
 * device_select.c - see device_select.h.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "device_select.h"

static bool starts_with_ci(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (!*s || (*s | 0x20) != (*prefix | 0x20))
            return false;
    return true;
}

/* PCI ids compare without domain width differences: "0000:17:00.0" and
 * "00000000:17:00.0" name the same device. */
static const char *pci_tail(const char *id)
{
    const char *colon = strchr(id, ':');
    return colon && strchr(colon + 1, ':') ? colon + 1 : id;
}

int device_select(const char *sel, const struct cudyn_device_info *const *infos, int n)
{
    /* An ordinal first; digits that are no ordinal may still begin a UUID. */
    char *end;
    long v = strtol(sel, &end, 10);
    if (*sel && !*end && v >= 0 && v < n)
        return (int)v;
    int found = DEVICE_SELECT_NONE;
    for (int i = 0; i < n; i++) {
        const struct cudyn_device_info *d = infos[i];
        if (!d)
            continue;
        bool match = strcasecmp(pci_tail(sel), pci_tail(d->pci_bus_id)) == 0 ||
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
