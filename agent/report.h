/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_REPORT_H
#define ABLAB_REPORT_H

#include "store.h"

/* Prints the A/B table of a campaign (format: text, json) on stdout. */
int report_campaign(struct store *st, int64_t campaign, const char *format, double alpha);

/* "353 ns", "1.208 us", "16.380 ms": units per value, as on the mailing list. */
void fmt_time(char *out, size_t len, double ns);
/* "+6.3%", "-0.009%": two significant digits, at least one decimal. */
void fmt_change(char *out, size_t len, double rel);

#endif
