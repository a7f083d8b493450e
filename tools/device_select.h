/*
 * device_select.h - how the tools name a device on the command line: an
 * ordinal (digits only, and nothing else: "2" is never a UUID prefix), a
 * UUID or a unique prefix of one (with or without "GPU-"), or a PCI bus id
 * ("0000:17:00.0"; 4- or 8-digit domain).
 */
#ifndef CUDYN_DEVICE_SELECT_H
#define CUDYN_DEVICE_SELECT_H

#include <stdbool.h>

#include "cudyn.h"

struct failure; /* common.h */

/* The ordinal of the device the selector names among n, or a negative
 * value with *f filled: usually EXIT_DEVICE_NOT_FOUND, with a message that
 * names the selector and says how devices can be named (but see below).
 * infos[i] describes device i, or is NULL if it could not be described (or
 * was not: an ordinal needs no description, see below), why[i] says why.  A
 * device that could not be described (infos[i] NULL) might have been the
 * one a UUID or PCI id names: then *f is why[i], the failure that left it
 * undescribed, with the selector named first.  An ordinal never depends
 * on the descriptions. */
int device_select_or_fail(const char *selector, const struct cudyn_device_info *const *infos,
                          const struct failure *const *why, int n, struct failure *f);

/* Whether the selector names a device by its description (a UUID or PCI
 * id), so that every device must be described to find it; an ordinal (or
 * an empty selector, which names none) needs no description. */
bool device_selector_by_description(const char *selector);

/* Whether two PCI bus ids name the same device, whatever the width of the
 * domain ("0000:17:00.0", "00000000:17:00.0") and the case of the hex. */
bool pci_bus_id_equal(const char *a, const char *b);

#endif
