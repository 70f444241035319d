// SPDX-License-Identifier: GPL-2.0-only
/* One file of `ablab ingest` before the database sees it (ingest-int.h): read, its uuid
 * made, its "Linux version" found, parsed and checked; the scenarios of a log cut short or
 * with rejected lines that stand on their own (--partial). */
#include "ingest-int.h"
#include "shared/util.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ingest_uuid(const char *board, const char *variant, const char *data, size_t len, char out[37])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!ctx) {
		err_msg("out of memory");
		abort();
	}
	/* the NULs keep ("ab", "c") and ("a", "bc") apart */
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	EVP_DigestUpdate(ctx, INGEST_UUID_NS, sizeof(INGEST_UUID_NS));
	EVP_DigestUpdate(ctx, board, strlen(board) + 1);
	EVP_DigestUpdate(ctx, variant, strlen(variant) + 1);
	EVP_DigestUpdate(ctx, data, len);
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	md[6] = (unsigned char)((md[6] & 0x0f) | 0x80); /* version 8 */
	md[8] = (unsigned char)((md[8] & 0x3f) | 0x80); /* RFC 9562 variant */
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 md[0], md[1], md[2], md[3], md[4], md[5], md[6], md[7], md[8], md[9], md[10],
		 md[11], md[12], md[13], md[14], md[15]);
}

/* "Linux version 6.1.0-ablab (gcc ...) #1 ..." anywhere in the log: the whole line from
 * "Linux version" and the release word. */
static void find_linux_version(const char *text, size_t len, char **line, char **release)
{
	const char *p = memmem(text, len, "Linux version ", 14), *e, *r;

	*line = *release = NULL;
	if (!p)
		return;
	e = p;
	while (e < text + len && *e != '\n' && *e != '\r' && *e)
		e++;
	*line = strndup(p, (size_t)(e - p));
	r = p + 14;
	e = r;
	while (e < text + len && !isspace((unsigned char)*e) && *e)
		e++;
	if (e > r)
		*release = strndup(r, (size_t)(e - r));
}

/* The scenario (and v1 batch, else -1) a rejected line was about, if it names one. */
static bool rejected_names(const struct rejected_line *x, char *scen, size_t len, int *batch)
{
	const char *p = strstr(x->text, "dmabench:"), *e;

	*batch = -1;
	if (!p)
		return false;
	p += strlen("dmabench:");
	while (*p == ' ')
		p++;
	if (!strncmp(p, "v1 ", 3)) {
		const char *b = strstr(p, " batch=");

		p = strstr(p, " scenario=");
		if (!p)
			return false;
		p += strlen(" scenario=");
		if (b)
			*batch = atoi(b + strlen(" batch="));
	}
	/* a name ends at a space ("size=1 ..." names no scenario) */
	for (e = p; *e && *e != ' '; e++)
		;
	if (!scenario_name_ok(p, (size_t)(e - p)) || (size_t)(e - p) >= len)
		return false;
	memcpy(scen, p, (size_t)(e - p));
	scen[e - p] = '\0';
	return true;
}

/*
 * The scenarios of a run that stand on their own: batches 1..N each once (the
 * seed format numbers them in order of appearance) and no rejected line about
 * them (a v1 line whose batch arrived intact elsewhere, e.g. in a dmesg typed
 * afterwards, does not count).  out gets their samples; every dropped scenario
 * is named on stderr.  Returns how many scenarios were kept and dropped.
 */
void ingest_keep_valid(const char *file, const struct run_result *in, struct run_result *out,
		       size_t *kept, size_t *dropped)
{
	struct {
		char name[64];
		int count, maxb, dup, bad_line;
		bool drop;
	} * sc;
	const struct sample **by;
	size_t nsc = 0, i, j;

	*kept = *dropped = 0;
	memset(out, 0, sizeof(*out));
	out->have_start = in->have_start;
	out->have_done = in->have_done;
	out->clock_res_ns = in->clock_res_ns;
	out->fmt = in->fmt;
	sc = xcalloc(in->n + (size_t)in->malformed + 1, sizeof(*sc));
	for (i = 0; i < in->n; i++) {
		const struct sample *s = &in->v[i];

		for (j = 0; j < nsc && strcmp(sc[j].name, s->scenario); j++)
			;
		if (j == nsc)
			snprintf(sc[nsc++].name, sizeof(sc->name), "%s", s->scenario);
		sc[j].count++;
		if (s->batch > sc[j].maxb)
			sc[j].maxb = s->batch;
	}
	/* a batch twice: neighbours once sorted by scenario and batch */
	by = xcalloc(in->n + 1, sizeof(*by));
	for (i = 0; i < in->n; i++)
		by[i] = &in->v[i];
	qsort(by, in->n, sizeof(*by), sample_cmp_batch);
	for (i = 1; i < in->n; i++) {
		if (strcmp(by[i]->scenario, by[i - 1]->scenario) ||
		    by[i]->batch != by[i - 1]->batch)
			continue;
		for (j = 0; strcmp(sc[j].name, by[i]->scenario); j++)
			;
		if (!sc[j].dup)
			sc[j].dup = by[i]->batch;
	}
	free(by);
	for (i = 0; i < (size_t)in->malformed; i++) {
		char name[64];
		int b;

		if (!rejected_names(&in->rejected[i], name, sizeof(name), &b))
			continue;
		for (j = 0; j < nsc && strcmp(sc[j].name, name); j++)
			;
		if (j == nsc) /* its only lines were rejected */
			snprintf(sc[nsc++].name, sizeof(sc->name), "%s", name);
		if (sc[j].bad_line)
			continue;
		if (b > 0) {
			bool have = false;

			for (size_t k = 0; k < in->n && !have; k++)
				have = !strcmp(in->v[k].scenario, name) && in->v[k].batch == b;
			if (have)
				continue;
		}
		sc[j].bad_line = in->rejected[i].lineno;
	}
	for (j = 0; j < nsc; j++) {
		if (!sc[j].count)
			err_msg("%s: scenario %s lost: its line %d was rejected and no other line of it is valid",
				file, sc[j].name, sc[j].bad_line);
		else if (sc[j].dup)
			err_msg("%s: scenario %s dropped: batch %d reported twice", file,
				sc[j].name, sc[j].dup);
		else if (sc[j].count != sc[j].maxb)
			err_msg("%s: scenario %s dropped: batches missing (%d of %d)", file,
				sc[j].name, sc[j].count, sc[j].maxb);
		else if (sc[j].bad_line)
			err_msg("%s: scenario %s dropped: its line %d was rejected", file,
				sc[j].name, sc[j].bad_line);
		else {
			(*kept)++;
			continue;
		}
		(*dropped)++;
		sc[j].drop = true;
	}
	out->v = xcalloc(in->n + 1, sizeof(*out->v));
	for (i = 0; i < in->n; i++) {
		for (j = 0; j < nsc && strcmp(sc[j].name, in->v[i].scenario); j++)
			;
		if (!sc[j].drop)
			out->v[out->n++] = in->v[i];
	}
	out->cap = in->n + 1;
	free(sc);
}

bool ingest_release_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 128 && isalnum((unsigned char)s[0]) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") == n;
}

void ingest_prepare(const char *board, const char *variant, const struct ingest_src *src,
		    struct ingest_prepared *p)
{
	memset(p, 0, sizeof(*p));
	p->file = src->name;
	p->path = src->path;
	p->read_err = read_file(src->path, &p->data, &p->len);
	if (p->read_err)
		return;
	if (src->part) { /* --split: this run's bytes only */
		size_t off = src->off < p->len ? src->off : p->len;
		const char *q, *last = NULL;

		/* a run begun by a start line is the kernel's before it: its banner */
		for (q = p->data;
		     (q = memmem(q, off - (size_t)(q - p->data), "Linux version ", 14)); q++)
			last = q;
		p->len = src->len < p->len - off ? src->len : p->len - off;
		if (last && !memmem(p->data + off, p->len, "Linux version ", 14))
			find_linux_version(last, (size_t)(p->data + off - last), &p->vline,
					   &p->vrel);
		memmove(p->data, p->data + off, p->len);
	}
	if (!p->vline)
		find_linux_version(p->data, p->len, &p->vline, &p->vrel);
	if (p->vrel && !ingest_release_ok(p->vrel)) {
		/* held to --kernel's rule: "=HYPERLINK(...)" is no release */
		p->vrel_bad = p->vrel;
		p->vrel = NULL;
	}
	ingest_uuid(board, variant, p->data, p->len, p->uuid);
	parse_log(p->data, p->len, &p->res);
	p->check = run_check(&p->res, &p->why);
	/* all that is needed of the text is taken: up to seven files are held */
	free(p->data);
	p->data = NULL;
}

void ingest_prepared_free(struct ingest_prepared *p)
{
	free(p->vline);
	free(p->vrel);
	free(p->vrel_bad);
	free(p->data);
	run_result_free(&p->res);
	memset(p, 0, sizeof(*p));
}
