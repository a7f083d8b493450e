/*
 * device_select.h - how the tools name a device on the command line: an
 * ordinal, a UUID or a unique prefix of one (with or without "GPU-"), or a
 * PCI bus id ("0000:17:00.0"; 4- or 8-digit domain).
 */
#ifndef CUDYN_DEVICE_SELECT_H
#define CUDYN_DEVICE_SELECT_H

#include "cudyn.h"

#define DEVICE_SELECT_NONE (-1)
#define DEVICE_SELECT_AMBIGUOUS (-2)

/* infos[i] describes device i, or is NULL if it could not be described.
 * Returns the ordinal, DEVICE_SELECT_NONE or DEVICE_SELECT_AMBIGUOUS. */
int device_select(const char *selector, const struct cudyn_device_info *const *infos, int n);

#endif
