// SPDX-License-Identifier: GPL-2.0-only
/* Benchmark output parser: tolerant of console noise, strict about values. */
#include "bench/parse.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG "dmabench:"

static int fail(struct line_info *li, const char *fmt, const char *a)
{
	snprintf(li->error, sizeof(li->error), fmt, a);
	return -EINVAL;
}

/* Strict integer: optional '-', digits, nothing else, no overflow. */
static bool parse_i64(const char *s, size_t len, bool allow_neg, int64_t *out)
{
	bool neg = false;
	int64_t v = 0;
	size_t i = 0;

	if (len && s[0] == '-' && allow_neg) {
		neg = true;
		i = 1;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		int d;

		if (s[i] < '0' || s[i] > '9')
			return false;
		d = s[i] - '0';
		if (v > (INT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? -v : v;
	return true;
}

struct kv {
	const char *k, *v;
	size_t klen, vlen;
};

/* Splits "k=v k2=  v2 word" into pairs; a bare word gets k=NULL.  The seed
 * module pads values ("size=     256"), so spaces after '=' are skipped. */
static size_t split_kv(const char *p, struct kv *kv, size_t max)
{
	size_t n = 0;

	while (*p && n < max) {
		const char *start, *eq;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		start = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '=')
			p++;
		eq = p;
		if (*eq == '=') {
			kv[n].k = start;
			kv[n].klen = (size_t)(eq - start);
			p = eq + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			kv[n].v = p;
			while (*p && *p != ' ' && *p != '\t')
				p++;
			kv[n].vlen = (size_t)(p - kv[n].v);
		} else {
			kv[n].k = NULL;
			kv[n].klen = 0;
			kv[n].v = start;
			kv[n].vlen = (size_t)(p - start);
		}
		n++;
	}
	return n;
}

/* the first pair with that key (a key holds no '=', space or NUL: the lengths decide) */
static const struct kv *find(const struct kv *kv, size_t n, const char *key)
{
	size_t i, len = strlen(key);

	for (i = 0; i < n; i++)
		if (kv[i].k && kv[i].klen == len && !memcmp(kv[i].k, key, len))
			return &kv[i];
	return NULL;
}

static int get_int(struct line_info *li, const struct kv *kv, size_t n, const char *key,
		   bool required, bool neg, int64_t *out)
{
	const struct kv *e = find(kv, n, key);

	if (!e) {
		if (required)
			return fail(li, "missing %s=", key);
		*out = -1;
		return 0;
	}
	if (!parse_i64(e->v, e->vlen, neg, out))
		return fail(li, "bad number in %s=", key);
	return 0;
}

static int get_word(struct line_info *li, const struct kv *kv, size_t n, const char *key, char *out,
		    size_t outlen, const char *const *allowed)
{
	const struct kv *e = find(kv, n, key);
	size_t i;

	if (!e)
		return fail(li, "missing %s=", key);
	if (e->vlen == 0 || e->vlen >= outlen)
		return fail(li, "bad value in %s=", key);
	memcpy(out, e->v, e->vlen);
	out[e->vlen] = '\0';
	for (i = 0; allowed && allowed[i]; i++)
		if (!strcmp(allowed[i], out))
			return 0;
	if (allowed)
		return fail(li, "unknown value in %s=", key);
	return 0;
}

bool scenario_name_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len >= sizeof(((struct sample *)0)->scenario))
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || (s[i] && strchr("._:+/-", s[i]))))
			return false;
	return true;
}

bool sample_minmax_ok(const struct sample *s)
{
	return s->min_ns < 0 || s->max_ns < 0 ||
	       (s->min_ns <= s->max_ns && s->mean_ns >= (double)s->min_ns &&
		s->mean_ns <= (double)s->max_ns);
}

static int check_timing(struct line_info *li)
{
	struct sample *s = &li->s;

	if (s->reps <= 0)
		return fail(li, "reps must be positive%s", "");
	if (s->size < 0)
		return fail(li, "negative size%s", "");
	if (!sample_minmax_ok(s))
		return fail(li, "inconsistent min/mean/max%s", "");
	return 0;
}

static int parse_v1(const char *p, struct line_info *li)
{
	static const char *const dirs[] = { "from", "to", "bidi", NULL };
	static const char *const ops[] = { "map_unmap", "map", "unmap", "sync", "null", NULL };
	static const char *const states[] = { "dirty", "clean", NULL };
	static const char *const timings[] = { "iter", "batch", NULL };
	struct sample *s = &li->s;
	struct kv kv[24];
	const struct kv *e;
	int64_t v;
	size_t n;

	n = split_kv(p, kv, ARRAY_SIZE(kv));
	if (n == 0 || kv[0].k)
		return fail(li, "v1 line without a kind%s", "");
	memset(s, 0, sizeof(*s));
	s->fmt = 1;
	s->min_ns = s->max_ns = s->raw_ns = s->base_ns = s->lost = -1;
#define IS(word) (kv[0].vlen == strlen(word) && !strncmp(kv[0].v, word, kv[0].vlen))
	if (IS("start")) {
		if (get_int(li, kv, n, "clock_res_ns", true, false, &li->clock_res_ns))
			return -EINVAL;
		return LINE_START;
	}
	if (IS("done")) {
		if (get_int(li, kv, n, "status", true, true, &v))
			return -EINVAL;
		if (v < -4095 || v > 0)
			return fail(li, "status out of range%s", "");
		li->done_status = (int)v;
		li->error[0] = '\0';
		e = find(kv, n, "error");
		if (e) {
			const struct kv *sc = find(kv, n, "scenario"), *fl = find(kv, n, "field");

			if (!fl)
				fl = find(kv, n, "param");
			snprintf(li->error, sizeof(li->error), "%.*s%s%.*s%s%.*s%s%.*s%s",
				 (int)e->vlen, e->v, sc ? " in scenario " : "",
				 sc ? (int)sc->vlen : 0, sc ? sc->v : "", fl ? " (" : "",
				 fl ? (int)fl->klen : 0, fl ? fl->k : "", fl ? " " : "",
				 fl ? (int)fl->vlen : 0, fl ? fl->v : "", fl ? ")" : "");
		}
		return LINE_DONE;
	}
	if (!IS("result") && !IS("preserve"))
		return fail(li, "unknown v1 line kind%s", "");
	s->kind = IS("result") ? SAMPLE_RESULT : SAMPLE_PRESERVE;
#undef IS
	e = find(kv, n, "scenario");
	if (!e || !scenario_name_ok(e->v, e->vlen))
		return fail(li, "missing or bad scenario=%s", "");
	memcpy(s->scenario, e->v, e->vlen);
	s->scenario[e->vlen] = '\0';
	if (get_int(li, kv, n, "batch", true, false, &v))
		return -EINVAL;
	if (v < 1 || v > 100000)
		return fail(li, "batch out of range%s", "");
	s->batch = (int)v;
	if (get_int(li, kv, n, "size", true, false, &s->size))
		return -EINVAL;
	if (s->kind == SAMPLE_PRESERVE) {
		if (get_int(li, kv, n, "lost", true, false, &s->lost))
			return -EINVAL;
		if (s->lost > s->size)
			return fail(li, "lost= larger than size=%s", "");
		s->reps = 1;
		return LINE_SAMPLE;
	}
	if (get_int(li, kv, n, "reps", true, false, &s->reps) ||
	    get_word(li, kv, n, "dir", s->dir, sizeof(s->dir), dirs) ||
	    get_word(li, kv, n, "op", s->op, sizeof(s->op), ops) ||
	    get_word(li, kv, n, "state", s->state, sizeof(s->state), states) ||
	    get_word(li, kv, n, "timing", s->timing, sizeof(s->timing), timings))
		return -EINVAL;
	if (!strcmp(s->timing, "iter")) {
		if (get_int(li, kv, n, "mean_ns", true, false, &v) ||
		    get_int(li, kv, n, "min_ns", true, false, &s->min_ns) ||
		    get_int(li, kv, n, "max_ns", true, false, &s->max_ns))
			return -EINVAL;
	} else {
		if (get_int(li, kv, n, "mean_ns", true, true, &v) ||
		    get_int(li, kv, n, "raw_ns", true, false, &s->raw_ns) ||
		    get_int(li, kv, n, "base_ns", true, false, &s->base_ns))
			return -EINVAL;
	}
	s->mean_ns = (double)v;
	if (get_int(li, kv, n, "ns_per_KiB", true, true, &v))
		return -EINVAL;
	s->ns_per_kib = (double)v;
	if (check_timing(li))
		return -EINVAL;
	return LINE_SAMPLE;
}

/* dmabench: NAME size=N reps=N mean_ns=N min_ns=N max_ns=N ns_per_KiB=N */
static int parse_seed(const char *p, struct line_info *li)
{
	struct sample *s = &li->s;
	struct kv kv[12];
	int64_t v;
	size_t n;

	n = split_kv(p, kv, ARRAY_SIZE(kv));
	if (n == 1 && !kv[0].k &&
	    ((kv[0].vlen == 5 && !strncmp(kv[0].v, "START", 5)) ||
	     (kv[0].vlen == 4 && !strncmp(kv[0].v, "DONE", 4))))
		return LINE_OTHER;
	if (n >= 1 && !kv[0].k && kv[0].vlen > 1 && kv[0].v[kv[0].vlen - 1] == ':') {
		/* "dmabench: NAME: dma_map_single failed" (a longer line is cut to fit) */
		snprintf(li->error, sizeof(li->error), "%.*s", (int)sizeof(li->error) - 1, p);
		li->done_status = -EIO;
		return LINE_DONE;
	}
	if (!strchr(p, '='))
		return LINE_OTHER; /* the kernel about the module: "dmabench: loading ..." */
	if (n < 2 || kv[0].k || !scenario_name_ok(kv[0].v, kv[0].vlen))
		return fail(li, "unrecognised dmabench line%s", "");
	memset(s, 0, sizeof(*s));
	s->kind = SAMPLE_RESULT;
	s->fmt = 0;
	s->min_ns = s->max_ns = s->raw_ns = s->base_ns = s->lost = -1;
	memcpy(s->scenario, kv[0].v, kv[0].vlen);
	s->scenario[kv[0].vlen] = '\0';
	strcpy(s->dir, "from");
	strcpy(s->op, "map_unmap");
	strcpy(s->state, strstr(s->scenario, "clean") ? "clean" : "dirty");
	strcpy(s->timing, "iter");
	if (get_int(li, kv, n, "size", true, false, &s->size) ||
	    get_int(li, kv, n, "reps", true, false, &s->reps) ||
	    get_int(li, kv, n, "mean_ns", true, false, &v) ||
	    get_int(li, kv, n, "min_ns", true, false, &s->min_ns) ||
	    get_int(li, kv, n, "max_ns", true, false, &s->max_ns))
		return -EINVAL;
	s->mean_ns = (double)v;
	if (get_int(li, kv, n, "ns_per_KiB", true, false, &v))
		return -EINVAL;
	s->ns_per_kib = (double)v;
	if (check_timing(li))
		return -EINVAL;
	return LINE_SAMPLE;
}

/* The line from its tag (line_end: the line's end, its NUL). */
static int parse_tagged(const char *tag, const char *line_end, struct line_info *li)
{
	const char *p = tag + strlen(TAG);
	char tmp[512];
	size_t len;

	while (*p == ' ')
		p++;
	/* work on a copy without trailing CR/LF/spaces */
	len = (size_t)(line_end - p);
	while (len && (p[len - 1] == '\r' || p[len - 1] == '\n' || p[len - 1] == ' '))
		len--;
	if (len >= sizeof(tmp))
		return fail(li, "line too long%s", "");
	memcpy(tmp, p, len);
	tmp[len] = '\0';
	if (!strncmp(tmp, "v1 ", 3))
		return parse_v1(tmp + 3, li);
	if (tmp[0] == 'v' && tmp[1] >= '0' && tmp[1] <= '9')
		return fail(li, "unsupported format version (this ablab reads v1)%s", "");
	return parse_seed(tmp, li);
}

int parse_line(const char *line, struct line_info *li)
{
	const char *p = strstr(line, TAG);

	memset(li, 0, sizeof(*li));
	if (!p)
		return LINE_NONE;
	return parse_tagged(p, p + strlen(p), li);
}

int sample_cmp_batch(const void *a, const void *b)
{
	const struct sample *x = *(const struct sample *const *)a;
	const struct sample *y = *(const struct sample *const *)b;
	int c = strcmp(x->scenario, y->scenario);

	return c ? c : (x->batch > y->batch) - (x->batch < y->batch);
}

void run_result_add(struct run_result *r, const struct sample *s)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n++] = *s;
}

/* "[   41.221634] dmabench: ...": the line from the printk timestamp just before
 * the tag (tag: the line's first) to its end e (trailing CR and spaces cut), else NULL
 * (no timestamp) */
static const char *printk_key(const char *line, const char *tag, const char *e, size_t *klen)
{
	const char *p;
	bool dot = false, digit = false;

	p = tag;
	while (p > line && p[-1] == ' ')
		p--;
	if (p == line || p[-1] != ']')
		return NULL;
	for (p -= 2; p >= line && *p != '['; p--) {
		if (*p == '.' && !dot)
			dot = true;
		else if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p != ' ')
			return NULL;
	}
	if (p < line || !dot || !digit)
		return NULL;
	while (e > p && (e[-1] == '\r' || e[-1] == ' '))
		e--;
	*klen = (size_t)(e - p);
	return p;
}

/*
 * The timestamped lines seen so far: an open-addressed set of copies, each slot with
 * its key's hash and length (a probe compares those before any byte) and the copy in
 * one growing arena (an offset: the arena moves as it grows), not one allocation per
 * line.
 */
struct seen_slot {
	uint64_t h; /* 0: empty (a key's hash is made odd) */
	size_t off, len;
};

struct seen {
	struct seen_slot *slot;
	size_t cap, n;
	struct buf arena;
};

/* 8 bytes at a time: multiply and fold; the tail bytes and the length go in last */
static uint64_t key_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s + i, len - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return h | 1;
}

static struct seen_slot *seen_find(struct seen *t, uint64_t h, const char *k, size_t klen)
{
	size_t i = (size_t)(h >> 7) & (t->cap - 1);

	while (t->slot[i].h && (t->slot[i].h != h || t->slot[i].len != klen ||
				memcmp(t->arena.data + t->slot[i].off, k, klen)))
		i = (i + 1) & (t->cap - 1);
	return &t->slot[i];
}

/* the slot a lookup of hash h starts at, asked of the cache early (it is rarely there) */
static void seen_prefetch(const struct seen *t, uint64_t h)
{
	if (t->cap)
		__builtin_prefetch(&t->slot[(size_t)(h >> 7) & (t->cap - 1)]);
}

/* true when the key (of hash h) was there already; else adds it */
static bool seen_add(struct seen *t, uint64_t h, const char *k, size_t klen)
{
	struct seen_slot *s;

	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct seen_slot *g = xcalloc(cap, sizeof(*g));

		for (size_t i = 0; i < t->cap; i++) {
			size_t j = (size_t)(t->slot[i].h >> 7) & (cap - 1);

			if (!t->slot[i].h)
				continue;
			while (g[j].h)
				j = (j + 1) & (cap - 1);
			g[j] = t->slot[i];
		}
		free(t->slot);
		t->slot = g;
		t->cap = cap;
	}
	s = seen_find(t, h, k, klen);
	if (s->h)
		return true;
	s->h = h;
	s->off = t->arena.len;
	s->len = klen;
	buf_append(&t->arena, k, klen);
	t->n++;
	return false;
}

static void seen_free(struct seen *t)
{
	free(t->slot);
	buf_free(&t->arena);
}

/* 0x80 in each byte of v that is zero (and maybe above one): nonzero iff v has a zero byte */
#define ZERO_BYTES(v) (((v)-0x0101010101010101ULL) & ~(v)&0x8080808080808080ULL)

/* the index of the first \n, \r or NUL in s[0, n), else n: 8 bytes a step */
static size_t line_stop(const char *s, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		if (ZERO_BYTES(w) | ZERO_BYTES(w ^ 0x0a0a0a0a0a0a0a0aULL) |
		    ZERO_BYTES(w ^ 0x0d0d0d0d0d0d0d0dULL))
			break;
	}
	while (i < n && s[i] != '\n' && s[i] != '\r' && s[i])
		i++;
	return i;
}

static void add_rejected(struct run_result *r, int lineno, const char *error, const char *line)
{
	struct rejected_line *x;

	if (!r->malformed)
		snprintf(r->first_error, sizeof(r->first_error), "%s: \"%.*s\"", error,
			 PARSE_EXCERPT, line);
	/* the array grows in powers of two: malformed is its length */
	if (!(r->malformed & (r->malformed - 1)))
		r->rejected = xrealloc(r->rejected, (size_t)(r->malformed ? 2 * r->malformed : 1) *
							    sizeof(*r->rejected));
	x = &r->rejected[r->malformed++];
	x->lineno = lineno;
	snprintf(x->error, sizeof(x->error), "%s", error);
	snprintf(x->text, sizeof(x->text), "%.*s", (int)sizeof(x->text) - 1, line);
}

/* the first TAG in line[0, len) (memmem's first match, without its setup per line) */
static const char *find_tag(const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	size_t tl = strlen(TAG);

	while ((size_t)(end - p) >= tl && (p = memchr(p, TAG[0], (size_t)(end - p) - tl + 1))) {
		if (!memcmp(p, TAG, tl))
			return p;
		p++;
	}
	return NULL;
}

static void run_start(struct run_result *r, int lineno, size_t off)
{
	if (r->runs < PARSE_RUNS_MAX) {
		r->run_line[r->runs] = lineno;
		r->run_off[r->runs] = off;
	}
	r->runs++;
}

/* "dmabench: START" (the seed module's start line) from its tag on */
static bool seed_start(const char *tag, const char *end)
{
	const char *p = tag + strlen(TAG);

	while (p < end && *p == ' ')
		p++;
	if (end - p < 5 || memcmp(p, "START", 5))
		return false;
	for (p += 5; p < end; p++)
		if (*p != ' ' && *p != '\r')
			return false;
	return true;
}

/* The next line of text from *i (*i and *lineno move past it and its line ends) into line
 * (cap bytes, NUL-terminated); its length.  A line ends at \n or a lone \r; NULs are
 * dropped (*nul says so).  Up to the first stop byte in one copy; from a NUL on, byte by
 * byte. */
static inline size_t next_line(const char *text, size_t len, size_t *pi, int *lineno, char *line,
			       size_t cap, bool *nul)
{
	size_t i = *pi, stop = line_stop(text + i, len - i);
	size_t j = stop < cap - 1 ? stop : cap - 1;

	memcpy(line, text + i, j);
	i += stop;
	*nul = false;
	while (i < len && text[i] != '\n' && text[i] != '\r') {
		if (text[i] && j < cap - 1)
			line[j++] = text[i];
		*nul |= !text[i];
		i++;
	}
	while (i < len && (text[i] == '\n' || text[i] == '\r'))
		*lineno += text[i++] == '\n';
	*pi = i;
	return j;
}

/* A parsed line (kind k, li) into r. */
static inline void apply_line(struct run_result *r, int k, struct line_info *li, const char *line)
{
	switch (k) {
	case LINE_START:
		r->n = 0;
		r->malformed = 0;
		r->have_done = false;
		r->have_start = true;
		r->clock_res_ns = li->clock_res_ns;
		r->fmt = 1;
		break;
	case LINE_SAMPLE:
		if (li->s.fmt == 0) {
			size_t m;
			int batch = 1;

			for (m = 0; m < r->n; m++)
				if (!strcmp(r->v[m].scenario, li->s.scenario))
					batch++;
			li->s.batch = batch;
		}
		r->fmt = li->s.fmt;
		run_result_add(r, &li->s);
		break;
	case LINE_DONE:
		r->have_done = true;
		r->done_status = li->done_status;
		snprintf(r->done_error, sizeof(r->done_error), "%s", li->error);
		break;
	case LINE_OTHER:
		if (strstr(line, "DONE"))
			r->have_done = true;
		if (r->fmt < 0)
			r->fmt = 0;
		break;
	default:
		break;
	}
}

void parse_log(const char *text, size_t len, struct run_result *r)
{
	struct seen seen = { 0 };
	size_t i = 0;
	int lineno = 1;
	bool boot_start = false; /* this boot (since its Linux version line) had a start */
	uint64_t kernel_h = 0; /* its Linux version line's hash and length */
	size_t kernel_len = 0;

	memset(r, 0, sizeof(*r));
	r->fmt = -1;
	while (i < len) {
		struct line_info li;
		const char *key, *tag;
		char line[1024];
		size_t j, klen;
		uint64_t h = 0;
		int k, at = lineno;
		size_t off = i;
		bool nul;

		j = next_line(text, len, &i, &lineno, line, sizeof(line), &nul);
		line[j] = '\0';
		tag = find_tag(line, j);
		if (tag && nul && !r->nul_lines++)
			r->nul_line = at; /* said by ingest: the bytes around it were joined */
		if (!tag) { /* LINE_NONE; a kernel's first line starts a run */
			const char *lv = j >= 14 ? memmem(line, j, "Linux version ", 14) : NULL;

			if (!lv)
				continue;
			key = printk_key(line, lv, line + j, &klen);
			if (key && seen_add(&seen, key_hash(key, klen), key, klen))
				continue; /* a dmesg's copy */
			/* the running kernel's banner again (/proc/version read by the
			 * benchmark, ABLAB-PROC=) is no new boot */
			klen = j - (size_t)(lv - line);
			while (klen && (lv[klen - 1] == '\r' || lv[klen - 1] == ' '))
				klen--;
			h = key_hash(lv, klen);
			if (r->runs && h == kernel_h && klen == kernel_len)
				continue;
			kernel_h = h;
			kernel_len = klen;
			run_start(r, at, off);
			boot_start = false;
			continue;
		}
		/* the line is parsed while its key's slot comes into the cache: parsing
		 * changes nothing but li, a duplicate's li is dropped */
		key = printk_key(line, tag, line + j, &klen);
		if (key) {
			h = key_hash(key, klen);
			seen_prefetch(&seen, h);
		}
		memset(&li, 0, sizeof(li));
		k = parse_tagged(tag, line + j, &li);
		if (key && seen_add(&seen, h, key, klen)) {
			r->duplicates++;
			continue;
		}
		if (k < 0) {
			add_rejected(r, at, li.error, line);
			continue;
		}
		if (k == LINE_START || (k == LINE_OTHER && seed_start(tag, line + j))) {
			if (!r->runs || boot_start)
				run_start(r, at, off);
			boot_start = true;
		}
		apply_line(r, k, &li, line);
	}
	seen_free(&seen);
}

/* Sorts sample pointers by scenario, batch, then position in the log. */
static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = *(const struct sample *const *)a;
	const struct sample *y = *(const struct sample *const *)b;
	int c = strcmp(x->scenario, y->scenario);

	if (c)
		return c;
	if (x->batch != y->batch)
		return x->batch < y->batch ? -1 : 1;
	return x < y ? -1 : x > y;
}

int run_check(const struct run_result *r, struct errtext *why)
{
	const struct sample **v, *bad = NULL;
	int bad_count = 0, bad_max = 0, bad_dup = 0;
	size_t i, j;

	if (r->malformed) {
		return errtext_set(why, -EINVAL, "%d malformed benchmark line(s); first: %s",
				   r->malformed, r->first_error);
	}
	if (r->have_done && r->done_status) {
		return errtext_set(why, -EIO, "module reported status %d%s%s", r->done_status,
				   r->done_error[0] ? ": " : "", r->done_error);
	}
	if (!r->have_done) {
		return errtext_set(why, -EINVAL, "no dmabench done line (output cut short?)");
	}
	if (!r->n) {
		return errtext_set(why, -EINVAL, "no benchmark samples");
	}
	/* every scenario must have batches 1..N exactly once: sorted, one pass
	 * (n log n: a long run has 100k samples); of several bad scenarios the
	 * one whose first sample comes first in the log is reported */
	v = xcalloc(r->n, sizeof(*v));
	for (i = 0; i < r->n; i++)
		v[i] = &r->v[i];
	qsort(v, r->n, sizeof(*v), cmp_sample);
	for (i = 0; i < r->n; i = j) {
		const struct sample *first = v[i];
		int d = 0, count = 0, maxb = 0;

		for (j = i; j < r->n && !strcmp(v[j]->scenario, v[i]->scenario); j++) {
			if (v[j] < first)
				first = v[j];
			count++;
			if (v[j]->batch > maxb)
				maxb = v[j]->batch;
			if (!d && j > i && v[j]->batch == v[j - 1]->batch)
				d = v[j]->batch;
		}
		if ((d || count != maxb) && (!bad || first < bad)) {
			bad = first;
			bad_dup = d;
			bad_count = count;
			bad_max = maxb;
		}
	}
	free(v);
	if (!bad)
		return 0;
	if (bad_dup)
		return errtext_set(why, -EINVAL, "scenario %s: batch %d reported twice",
				   bad->scenario, bad_dup);
	return errtext_set(why, -EINVAL, "scenario %s: batches missing (%d of %d)", bad->scenario,
			   bad_count, bad_max);
}

void run_result_free(struct run_result *r)
{
	free(r->v);
	free(r->rejected);
	memset(r, 0, sizeof(*r));
}
