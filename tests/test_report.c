// SPDX-License-Identifier: GPL-2.0-only
/* Report rendering without a database: Karl's table from the seed (000_*)
 * fed as per-boot values reproduces his figures, the email fits 72 columns,
 * the SVG has a dot per boot, word wrapping keeps marked spaces. */
#include "check.h"
#include "report/report.h"
#include "shared/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Karl's table (seed 000): per-kernel means as printed, and his change column */
struct karl_row {
	int board;
	const char *label, *ctl, *pat, *change;
	double ctl_ns, pat_ns; /* the printed value in ns */
	double half_ulp; /* half a unit of the printed value's last digit, in ns */
	int64_t size;
	const char *state;
};

static const struct karl_row karl[] = {
	{ 0, "Cortex-A72, v7, 256 B dirty", "353 ns", "376 ns", "+6.3%", 353, 376, 0.5, 256,
	  "dirty" },
	{ 0, "Cortex-A72, v7, 1 MiB dirty", "73.840 us", "73.994 us", "+0.21%", 73840, 73994, 0.5,
	  1 << 20, "dirty" },
	{ 0, "Cortex-A72, v7, 1 MiB clean", "73.108 us", "73.115 us", "+0.01%", 73108, 73115, 0.5,
	  1 << 20, "clean" },
	{ 1, "ARM926EJ-S, legacy, 256 B dirty", "1.208 us", "1.203 us", "-0.4%", 1208, 1203, 0.5,
	  256, "dirty" },
	{ 1, "ARM926EJ-S, legacy, 1 MiB dirty", "656.888 us", "656.827 us", "-0.009%", 656888,
	  656827, 0.5, 1 << 20, "dirty" },
	{ 1, "ARM926EJ-S, legacy, 1 MiB clean", "656.608 us", "656.601 us", "-0.001%", 656608,
	  656601, 0.5, 1 << 20, "clean" },
	{ 2, "ARM11 MPCore, v6, 256 B dirty", "4.639 us", "3.095 us", "-33.3%", 4639, 3095, 0.5,
	  256, "dirty" },
	{ 2, "ARM11 MPCore, v6, 1 MiB dirty", "16.380 ms", "15.550 ms", "-5.1%", 16380000, 15550000,
	  500, 1 << 20, "dirty" },
	{ 2, "ARM11 MPCore, v6, 1 MiB clean", "16.380 ms", "15.560 ms", "-5.0%", 16380000, 15560000,
	  500, 1 << 20, "clean" },
};

static const char *const cpus[3][2] = { { "Cortex-A72", "v7" },
					{ "ARM926EJ-S", "legacy" },
					{ "ARM11 MPCore", "v6" } };
/* three boots per kernel on Pi 400 and SAM9X75, five on ARM11 (seed 000) */
static const int boots_per_kernel[3] = { 3, 3, 5 };

static void add_boot(struct rep_row *r, int variant, int seq, const double *v, size_t n)
{
	struct rep_boot *b;

	r->boots = xrealloc(r->boots, (r->nboots + 1) * sizeof(*r->boots));
	b = &r->boots[r->nboots++];
	memset(b, 0, sizeof(*b));
	b->id = 1000 + seq;
	b->seq = seq;
	b->variant = variant;
	b->batch = xmalloc(n * sizeof(double));
	memcpy(b->batch, v, n * sizeof(double));
	b->nbatch = n;
	stats_summary(v, n, &b->s);
	b->mod_min = b->mod_max = b->raw_mean = b->base_mean = NAN;
}

static void karl_report(struct report *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->campaign = 42;
	snprintf(rep->trigger, sizeof(rep->trigger), "cli");
	snprintf(rep->order_kind, sizeof(rep->order_kind), "abab");
	snprintf(rep->status, sizeof(rep->status), "complete");
	rep->batches = 5;
	rep->nboards = 3;
	rep->boards = xcalloc(3, sizeof(*rep->boards));
	for (int b = 0; b < 3; b++) {
		struct rep_board *rb = &rep->boards[b];

		snprintf(rb->name, sizeof(rb->name), "board%d", b);
		snprintf(rb->cpu, sizeof(rb->cpu), "%s", cpus[b][0]);
		snprintf(rb->family, sizeof(rb->family), "%s", cpus[b][1]);
		rb->description = xstrdup("");
		for (int i = 0; i < 2 * boots_per_kernel[b]; i++)
			rb->order[i] = i % 2 ? 'B' : 'A';
		rb->boot_s = rb->run_s = NAN;
	}
	rep->nrows = ARRAY_SIZE(karl);
	rep->rows = xcalloc(rep->nrows, sizeof(*rep->rows));
	for (size_t i = 0; i < ARRAY_SIZE(karl); i++) {
		struct rep_row *r = &rep->rows[i];

		r->board = karl[i].board;
		snprintf(r->scenario, sizeof(r->scenario), "s%zu", i);
		snprintf(r->kind, sizeof(r->kind), "result");
		snprintf(r->op, sizeof(r->op), "map_unmap");
		snprintf(r->state, sizeof(r->state), "%s", karl[i].state);
		snprintf(r->timing, sizeof(r->timing), "iter");
		r->size = karl[i].size;
		r->reps = 1000;
		/* the per-kernel mean as every boot's value (one batch each) */
		for (int k = 0; k < 2 * boots_per_kernel[r->board]; k++)
			add_boot(r, k % 2, k + 1, k % 2 ? &karl[i].pat_ns : &karl[i].ctl_ns, 1);
	}
}

static int decimals(const char *s)
{
	const char *d = strchr(s, '.');

	return d ? (int)(strcspn(d + 1, "%")) : 0;
}

/*
 * "To the shown precision": our change, rounded to the decimals Karl printed, must equal his
 * change. Where it does not, his inputs were rounded more coarsely than his output (he
 * computed from unrounded means): then his change must lie within what the printed means can
 * give (each +- half a unit of its last digit), and that range must be wider than his
 * printed precision. That happens exactly once: 353 -> 376 ns gives +6.5%, he printed
 * +6.3% (from e.g. 353.4 -> 375.7 ns; his text says "about 22 ns").
 */
static void test_karl(void)
{
	struct report_opts o = { .alpha = 0.05, .target = 0.01 };
	struct report rep;
	char *out = NULL, *line, *save = NULL;
	size_t outlen = 0, maxw = 0;
	int mismatches = 0, found = 0;
	FILE *f;

	karl_report(&rep);
	report_analyse(&rep, &o);
	for (size_t i = 0; i < ARRAY_SIZE(karl); i++) {
		const struct rep_row *r = &rep.rows[i];
		char a[32], b[32], l[160], ours[32], theirs[32];
		int dec = decimals(karl[i].change);
		double shown = strtod(karl[i].change, NULL);

		/* rows are sorted by board then size/state: the seed's order */
		report_row_label_full(&rep, r, l, sizeof(l));
		CHECK_STR(l, karl[i].label);
		fmt_time(a, sizeof(a), r->ab.a.mean);
		fmt_time(b, sizeof(b), r->ab.b.mean);
		CHECK_STR(a, karl[i].ctl);
		CHECK_STR(b, karl[i].pat);
		snprintf(ours, sizeof(ours), "%+.*f%%", dec, r->ab.rel_change * 100.0);
		snprintf(theirs, sizeof(theirs), "%s", karl[i].change);
		if (strcmp(ours, theirs)) {
			double h = karl[i].half_ulp, c = karl[i].ctl_ns, p = karl[i].pat_ns;
			double lo = ((p - h) / (c + h) - 1.0) * 100.0;
			double hi = ((p + h) / (c - h) - 1.0) * 100.0;
			double unit = pow(10.0, -dec);

			mismatches++;
			fprintf(stderr,
				"  %s: ours %s, seed %s; printed means allow "
				"[%+.3f%%, %+.3f%%]\n",
				karl[i].label, ours, theirs, lo, hi);
			CHECK(shown >= lo && shown <= hi);
			CHECK(hi - lo > unit);
		}
	}
	CHECK(mismatches == 1);
	CHECK(rep.rows[0].verdict == -1); /* 3+3: p >= 0.1 */
	/* 5+5 separated: p = 2/252, but Holm over the table's 9 timing rows (the three
	 * ARM11 rows share the smallest p): 9 x 2/252 = 0.071 > 0.05, so undecided */
	CHECK(fabs(rep.rows[6].sr.p - 2.0 / 252.0) < 1e-12);
	CHECK(fabs(rep.rows[6].p_adj - 9.0 * 2.0 / 252.0) < 1e-12);
	CHECK(rep.rows[6].verdict == -1);
	CHECK(rep.rows[6].ab.sep == SEP_B_BELOW);
	/* 5+5 reaches 0.05 but not Holm's first step over 9 rows: too few boots */
	CHECK(rep.rows[6].few);

	f = open_memstream(&out, &outlen);
	CHECK(report_write(&rep, "email", &o, f) == 0);
	fclose(f);
	{
		/* the footnote's reason is the level one row is held to, not alpha */
		char *flat = strdup(out);

		for (char *q = flat; *q; q++)
			*q = *q == '\n' ? ' ' : *q;
		CHECK(strstr(flat,
			     "above the 0.0056 one row is held to (alpha 0.05 over 9 rows, Holm): this design could not say \"different\"") !=
		      NULL);
		CHECK(strstr(flat, "too few boots to reach alpha") == NULL);
		free(flat);
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		maxw = strlen(line) > maxw ? strlen(line) : maxw;
		if (strstr(line, "Cortex-A72, v7, 256 B dirty") && strstr(line, "353 ns") &&
		    strstr(line, "376 ns") && line[strlen(line) - 1] == '~')
			found++;
		if (strstr(line, "ARM11 MPCore, v6, 256 B dirty") && strstr(line, "4.639 us") &&
		    line[strlen(line) - 1] == '~')
			found++;
	}
	CHECK(maxw <= 72);
	CHECK(found == 2);
	free(out);

	/* SVG: one dot per boot, one mean bar per variant and row */
	out = NULL;
	f = open_memstream(&out, &outlen);
	CHECK(report_write(&rep, "svg", &o, f) == 0);
	fclose(f);
	{
		size_t dots = 0, bars = 0;

		for (char *p = out; (p = strstr(p, "<circle class=\"boot")); p++)
			dots++;
		for (char *p = out; (p = strstr(p, "class=\"mean\"")); p++)
			bars++;
		CHECK(dots == 3 * 6 + 3 * 6 + 3 * 10);
		CHECK(bars == 2 * ARRAY_SIZE(karl));
		CHECK(strstr(out, "mean 353 ns") != NULL);
	}
	free(out);
	CHECK(report_write(&rep, "yaml", &o, stdout) == -EINVAL);
	report_free(&rep);
}

/* The demo's shape: three QEMU boards (5+5 boots on each), Karl's nine timing rows and a
 * preservation row per board (lost 0: no board loses a byte with either kernel). */
static void demo_report(struct report *rep, int icount_shift, double lost)
{
	static const char *const names[3] = { "qemu-pi400", "qemu-sam9x75", "qemu-arm11" };
	size_t n;

	karl_report(rep);
	n = rep->nrows;
	for (int b = 0; b < 3; b++) {
		struct rep_board *rb = &rep->boards[b];

		snprintf(rb->name, sizeof(rb->name), "%s", names[b]);
		free(rb->description);
		rb->description = xstrdup("QEMU stand-in. No cache model.");
		rb->emulated = true;
		rb->icount_shift = icount_shift;
		for (int i = 0; i < 10; i++)
			rb->order[i] = i % 2 ? 'B' : 'A';
	}
	for (size_t i = 0; i < n; i++) { /* 5+5 everywhere: more boots of the same values */
		struct rep_row *r = &rep->rows[i];

		for (int k = 2 * boots_per_kernel[r->board]; k < 10; k++)
			add_boot(r, k % 2, k + 1, k % 2 ? &karl[i].pat_ns : &karl[i].ctl_ns, 1);
	}
	rep->rows = xrealloc(rep->rows, (n + 3) * sizeof(*rep->rows));
	for (int b = 0; b < 3; b++) {
		struct rep_row *r = &rep->rows[n + (size_t)b];

		memset(r, 0, sizeof(*r));
		r->board = b;
		snprintf(r->scenario, sizeof(r->scenario), "preserve-409600B");
		snprintf(r->kind, sizeof(r->kind), "preserve");
		r->size = 409600;
		for (int k = 0; k < 10; k++) {
			/* lost > 0: control loses lost + 1000 * board bytes, patched none */
			double v = k % 2 || !lost ? 0 : lost + 1000.0 * b;

			add_boot(r, k % 2, k + 1, &v, 1);
		}
	}
	rep->nrows = n + 3;
}

static char *render(struct report *rep, const char *format)
{
	struct report_opts o = { .alpha = 0.05, .target = 0.01 };
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);

	CHECK(report_write(rep, format, &o, f) == 0);
	fclose(f);
	return out;
}

/* occurrences of what in s, a line break counting as a space */
static size_t count_str(const char *s, const char *what)
{
	char *flat = xstrdup(s);
	size_t n = 0;

	for (char *p = flat; *p; p++)
		*p = *p == '\n' ? ' ' : *p;
	for (const char *p = flat; (p = strstr(p, what)); p++)
		n++;
	free(flat);
	return n;
}

/* The email's method paragraph: its line count and widest line; *flat: the paragraph in
 * one line (malloc'd), to find words the wrapping split */
static size_t method_lines(const char *email, size_t *maxw, char **flat)
{
	const char *p = strstr(email, "\nMethod (ablab campaign");
	size_t n = 0;
	struct buf b = { 0 };

	*maxw = 0;
	for (p = p ? p + 1 : NULL; p && *p && *p != '\n'; n++) {
		size_t len = strcspn(p, "\n");

		*maxw = len > *maxw ? len : *maxw;
		buf_printf(&b, "%s%.*s", n ? " " : "", (int)len, p);
		p += len + (p[len] == '\n');
	}
	buf_append(&b, "", 1);
	*flat = b.data;
	return n;
}

/* drops every row but those of board `keep` (the report then holds its three rows) */
static void keep_board(struct report *rep, int keep)
{
	size_t k = 0;

	for (size_t i = 0; i < rep->nrows; i++) {
		struct rep_row *r = &rep->rows[i];

		if (r->board == keep && strcmp(r->kind, "preserve")) {
			rep->rows[k++] = *r;
			continue;
		}
		for (size_t j = 0; j < r->nboots; j++)
			free(r->boots[j].batch);
		free(r->boots);
	}
	rep->nrows = k;
}

/*
 * The method paragraph a maintainer reads: three QEMU boards of one design, 4 undecided and
 * 5 "same" rows, one preservation result. The email says it in at most 8 lines of 72
 * columns (it was 22): the boards in one clause, verdicts counted beyond 3 rows, the
 * preservation check once, what an emulated figure is once in every format.
 */
static void test_method(void)
{
	struct report_opts o = { .alpha = 0.05, .target = 0.01 };
	static const char *const fmts[] = { "email", "text", "json", "html" };
	struct report rep;
	char *out, *flat;
	size_t maxw, n;

	demo_report(&rep, 0, 0);
	report_analyse(&rep, &o);
	out = render(&rep, "email");
	n = method_lines(out, &maxw, &flat);
	if (n > 8)
		fprintf(stderr, "%s\n", out);
	CHECK(n <= 8);
	CHECK(maxw <= 72);
	CHECK(strstr(flat,
		     "each kernel booted 5 times on qemu-pi400, qemu-sam9x75 and qemu-arm11, alternating;") !=
	      NULL);
	CHECK(strstr(flat, "Same within ±1%: 5 rows. Undecided: 4 rows.") != NULL);
	CHECK(count_str(flat, "reservation check") == 1);
	CHECK(strstr(flat,
		     "Preservation check: 0 of 409600 bytes lost per boot with both kernels on every board.") !=
	      NULL);
	CHECK(strstr(flat,
		     "All three boards are QEMU with exact instruction counting: the times are instructions on the CPU path (1 ns = 1 instruction), no cache cost.") !=
	      NULL);
	CHECK(strstr(flat, "not hardware costs") == NULL);
	free(flat);
	free(out);
	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
		out = render(&rep, fmts[i]);
		if (count_str(out, "exact instruction counting") != 1)
			fprintf(stderr, "%s: the emulated sentence %zu times\n", fmts[i],
				count_str(out, "exact instruction counting"));
		CHECK(count_str(out, "exact instruction counting") == 1);
		free(out);
	}
	out = render(&rep, "text");
	CHECK(count_str(
		      out,
		      "qemu-pi400, qemu-sam9x75 and qemu-arm11 are QEMU boards with exact instruction counting: their times are instructions on the CPU path (1 ns = 1 instruction), no cache cost.") ==
	      1);
	CHECK(count_str(out, "preservation check") == 1);
	free(out);
	out = render(&rep, "json");
	CHECK(count_str(out, "\"clock\":\"icount\"") + count_str(out, "\"clock\": \"icount\"") ==
	      3);
	CHECK(count_str(out, "\"ns_per_insn\":1") + count_str(out, "\"ns_per_insn\": 1") == 3);
	free(out);
	report_free(&rep);

	/* sequential, qemu-arm11 decided at 4+4: a clause per boot count, still 8 lines */
	demo_report(&rep, 0, 0);
	rep.seq.first = 3;
	rep.seq.budget = 5;
	rep.seq.alpha = rep.seq.beta = 0.05;
	rep.seq.boards = 3;
	rep.boards[2].order[8] = '\0';
	for (size_t i = 0; i < rep.nrows; i++)
		while (rep.rows[i].board == 2 && rep.rows[i].nboots > 8)
			free(rep.rows[i].boots[--rep.rows[i].nboots].batch);
	report_analyse(&rep, &o);
	out = render(&rep, "email");
	if (method_lines(out, &maxw, &flat) > 8)
		fprintf(stderr, "%s\n", out);
	free(flat);
	CHECK(method_lines(out, &maxw, &flat) <= 8);
	CHECK(strstr(flat,
		     "each kernel booted 5 times on qemu-pi400 and qemu-sam9x75, 4 times on qemu-arm11, alternating;") !=
	      NULL);
	CHECK(strstr(flat, "Sequential, looks at 3+3..5+5: Pocock-type exact rank test") != NULL);
	free(flat);
	free(out);
	report_free(&rep);

	/* boards whose preservation figures differ but agree (control loses, patched does
	 * not, on every board): one sentence, the figures as a range */
	demo_report(&rep, 0, 340000);
	report_analyse(&rep, &o);
	out = render(&rep, "email");
	CHECK(method_lines(out, &maxw, &flat) <= 8);
	CHECK(count_str(flat, "reservation check") == 1);
	CHECK(strstr(flat,
		     "Preservation check: 340000-342000 of 409600 bytes lost per boot with control, 0 with patched on every board.") !=
	      NULL);
	free(flat);
	free(out);
	report_free(&rep);

	/* on the host's clock (no "icount_shift"): the old warning, once; three rows of a verdict
	 * named (one board's rows: Holm over 3, each 0.024) */
	demo_report(&rep, -1, 0);
	keep_board(&rep, 0);
	report_analyse(&rep, &o);
	out = render(&rep, "email");
	method_lines(out, &maxw, &flat);
	CHECK(count_str(flat, "are emulated (QEMU, no cache model): not hardware costs.") == 1);
	CHECK(strstr(flat, "instruction") == NULL);
	CHECK(strstr(flat,
		     "Different: Cortex-A72 256 B dirty, Cortex-A72 1 MiB dirty and Cortex-A72 1 MiB clean. qemu-pi400") !=
	      NULL);
	free(flat);
	free(out);
	out = render(&rep, "json");
	CHECK(count_str(out, "\"clock\":\"wall\"") + count_str(out, "\"clock\": \"wall\"") == 3);
	CHECK(strstr(out, "\"ns_per_insn\":1") == NULL &&
	      strstr(out, "\"ns_per_insn\": 1") == NULL);
	free(out);
	report_free(&rep);
}

static void test_wrap(void)
{
	char *w = report_wrap("aaa bbb ccc p\001=\0010.008 ddd", 12, "");

	CHECK_STR(w, "aaa bbb ccc\np = 0.008\nddd");
	free(w);
	w = report_wrap("one\ntwo three", 5, "> ");
	CHECK_STR(w, "> one\n> two\n> three");
	free(w);
}

static void test_format(void)
{
	char s[32];

	fmt_change(s, sizeof(s), 0.0021);
	CHECK_STR(s, "+0.21%");
	fmt_change(s, sizeof(s), -0.33283);
	CHECK_STR(s, "-33.3%");
	fmt_time(s, sizeof(s), 16380000);
	CHECK_STR(s, "16.380 ms");
	CHECK(report_format_ok("email") && report_format_ok("html") && !report_format_ok("ext"));
}

/* A board whose boots differ in more than the kernel (report-env.c sets env_changed):
 * every format says so with that board's rows, and only with them */
static void test_env_flags(void)
{
	struct report_opts o = { .alpha = 0.05, .target = 0.01 };
	static const char *const fmts[] = { "text", "email", "json", "csv", "html", "kcidb" };
	const char *what =
		"environment changed between boots: U-Boot 2023.01 -> 2024.04 from boot 3";
	struct report rep;
	size_t rows1 = 0;

	demo_report(&rep, 0, 0);
	report_analyse(&rep, &o);
	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) { /* nothing changed: no flag */
		char *out = render(&rep, fmts[i]);

		CHECK(!strstr(out, "environment changed") && !strstr(out, "class=\"env-changed\""));
		free(out);
	}
	rep.boards[1].env_changed = xstrdup(what);
	for (size_t i = 0; i < rep.nrows; i++)
		rows1 += rep.rows[i].board == 1;
	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
		char *out = render(&rep, fmts[i]);
		size_t n = count_str(out, "U-Boot 2023.01 -> 2024.04 from boot 3") +
			   count_str(out, "U-Boot 2023.01 -&gt; 2024.04 from boot 3");

		/* text, email: one note under the table; json: the board and its rows; csv,
		 * kcidb: each of its rows (kcidb: each of its variants' tests); html: the
		 * warning and each row's title */
		if (!strcmp(fmts[i], "text"))
			CHECK(count_str(
				      out,
				      "  qemu-sam9x75: environment changed between boots: U-Boot") ==
				      1 &&
			      n == 1);
		else if (!strcmp(fmts[i], "email"))
			CHECK(count_str(out,
					"* qemu-sam9x75: environment changed between boots:") ==
				      1 &&
			      n == 1);
		else if (!strcmp(fmts[i], "json") || !strcmp(fmts[i], "html"))
			CHECK(n == rows1 + 1);
		else if (!strcmp(fmts[i], "csv"))
			CHECK(n == rows1);
		else
			CHECK(n == 2 * rows1);
		free(out);
	}
	report_free(&rep);
}

int main(void)
{
	test_env_flags();
	test_karl();
	test_method();
	test_wrap();
	test_format();
	CHECK_DONE("test_report");
}
