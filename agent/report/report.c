// SPDX-License-Identifier: GPL-2.0-only
/* Reports of one campaign: the mailing-list table (control / patched /
 * change) in text, paste-ready email, JSON, CSV, SVG, a self-contained
 * HTML page and a KCIDB submission.  The boot is the unit: per boot and scenario the batches are
 * summarised, and every A/B figure is computed from the boot means.
 *
 * This file holds the format table and the entry points; the rooms are listed in
 * report-int.h.  A new format: one renderer file (or function) and one line below. */
#include "report/report.h"
#include "report/report-int.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static void fmt_email(const struct report *rep, const struct report_opts *o, FILE *f)
{
	/* --reply: a mail git send-email sends as a reply to the series' first message */
	if (o->reply && rep->series_msgid[0]) {
		const char *s = rep->series_subject;

		fprintf(f,
			"From ablab Mon Sep 17 00:00:00 2001\n"
			"Subject: %s%s\nIn-Reply-To: <%s>\nReferences: <%s>\n"
			"MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
			"Content-Transfer-Encoding: 8bit\n\n",
			strncasecmp(s, "Re:", 3) ? "Re: " : "", s, rep->series_msgid,
			rep->series_msgid);
	}
	rep_write_email(rep, f);
}

static void fmt_json(const struct report *rep, const struct report_opts *o, FILE *f)
{
	(void)o;
	rep_write_json(rep, f);
}

static void fmt_svg(const struct report *rep, const struct report_opts *o, FILE *f)
{
	(void)o;
	rep_write_svg(rep, f);
}

static void fmt_html(const struct report *rep, const struct report_opts *o, FILE *f)
{
	(void)o;
	rep_write_html(rep, f);
}

static void fmt_kcidb(const struct report *rep, const struct report_opts *o, FILE *f)
{
	(void)o;
	rep_write_kcidb(rep, f);
}

const struct report_format report_formats[] = {
	{ "text", rep_write_text, "report.txt", true,
	  "the A/B table for a terminal (--detail: per-boot statistics)" },
	{ "email", fmt_email, "email.txt", true,
	  "72 columns, ready to paste, with the method paragraph" },
	{ "json", fmt_json, "report.json", false, "every row, boot and figure, for programs" },
	{ "csv", rep_write_csv, NULL, false, "one line per row (--detail: per boot)" },
	{ "svg", fmt_svg, "report.svg", false, "every boot's mean as a dot, one panel per row" },
	{ "html", fmt_html, "report.html", false, "a self-contained page: the table and the SVG" },
	{ "kcidb", fmt_kcidb, NULL, true, "a KernelCI results database (KCIDB v5.3) submission" },
};
const size_t report_nformats = ARRAY_SIZE(report_formats);

const struct report_format *report_format_find(const char *name)
{
	for (size_t i = 0; i < report_nformats; i++)
		if (!strcmp(name, report_formats[i].name))
			return &report_formats[i];
	return NULL;
}

char *report_format_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < report_nformats && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      report_formats[i].name);
	return buf;
}

int report_write(const struct report *rep, const char *format, const struct report_opts *o,
		 FILE *out)
{
	const struct report_format *f = report_format_find(format);

	if (!f)
		return -EINVAL;
	f->write(rep, o, out);
	return 0;
}

bool report_format_ok(const char *format)
{
	return report_format_find(format) != NULL;
}

int report_campaign_opts(struct store *st, int64_t campaign, const char *format,
			 const struct report_opts *o)
{
	return report_campaign_to(st, campaign, format, o, stdout);
}

int report_campaign_to(struct store *st, int64_t campaign, const char *format,
		       const struct report_opts *o, FILE *out)
{
	const struct report_format *f = report_format_find(format);
	struct report rep;
	char names[128];
	int ret;

	if (!f) {
		err_msg("report: unknown format \"%s\" (%s)", format,
			report_format_names(names, sizeof(names)));
		return -EINVAL;
	}
	ret = report_load(st, campaign, &rep);
	if (ret == -ENOENT)
		err_msg("no campaign %" PRId64 " in the database", campaign);
	if (ret) {
		report_free(&rep);
		return ret;
	}
	if (o->reply && (strcmp(f->name, "email") || !rep.series_msgid[0])) {
		if (strcmp(f->name, "email"))
			err_msg("--reply: only the email format is a reply (use --format email)");
		else
			err_msg("--reply: campaign %" PRId64
				" was not run on a series from a mailbox (its job's variants.patched.patches is a directory), so there is no message to reply to",
				campaign);
		report_free(&rep);
		return -EINVAL;
	}
	report_analyse(&rep, o);
	f->write(&rep, o, out);
	ret = !rep.nrows && f->needs_rows ? -ENOENT : 0;
	report_free(&rep);
	return ret;
}

int report_campaign(struct store *st, int64_t campaign, const char *format, double alpha)
{
	struct report_opts o = { .alpha = alpha, .target = ABLAB_TARGET };

	return report_campaign_opts(st, campaign, format, &o);
}
