// SPDX-License-Identifier: GPL-2.0-only
/* Series from a mailbox through b4 (series.h): `b4 am --use-local-mbox` picks the thread's
 * latest series and orders it; its quilt output (each patch's From, Date, subject and
 * body) and its am-ready mbox (the full subjects and message-ids) become a patch
 * directory in `git format-patch --zero-commit` form. */
#include "series.h"
#include "shared/jsonfile.h"
#include "shared/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void series_free(struct series *s)
{
	free(s->msgid);
	free(s->subject);
	strv_free(s->subjects);
	strv_free(s->msgids);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

/* The unfolded value of header NAME in the header block starting at msg, or NULL. */
static char *header(const char *msg, const char *name)
{
	size_t nl = strlen(name);
	const char *p = msg;

	while (*p && *p != '\n') {
		const char *e = strchr(p, '\n');

		if (!strncasecmp(p, name, nl) && p[nl] == ':') {
			struct buf b = { 0 };
			const char *v = p + nl + 1;

			for (;;) {
				while (*v == ' ' || *v == '\t')
					v++;
				e = strchr(v, '\n');
				if (!e)
					e = v + strlen(v);
				if (b.len)
					buf_append(&b, " ", 1);
				buf_append(&b, v, (size_t)(e - v));
				if (*e != '\n' || (e[1] != ' ' && e[1] != '\t'))
					break;
				v = e + 1;
			}
			buf_append(&b, "", 1);
			return b.data;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return NULL;
}

/* git format-patch's file name: NNNN-, the subject's runs of letters, digits, '.' and '_'
 * joined by '-' (no "..", no trailing '.' or '-'), .patch. */
static char *patch_name(size_t nr, const char *subject)
{
	struct buf b = { 0 };
	int space = 2;
	const char *p;

	buf_printf(&b, "%04zu-", nr);
	for (p = subject; *p; p++) {
		char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_') {
			if (space == 1)
				buf_append(&b, "-", 1);
			space = 0;
			buf_append(&b, &c, 1);
			if (c == '.')
				while (p[1] == '.')
					p++;
		} else {
			space |= 1;
		}
	}
	while (b.len > 5 && (b.data[b.len - 1] == '.' || b.data[b.len - 1] == '-'))
		b.len--;
	buf_append(&b, ".patch", 7);
	return b.data;
}

/* "Subject: S" folded at spaces as git does (lines of at most 78 columns). */
static void put_subject(struct buf *b, const char *s)
{
	char *copy = xstrdup(s), *save = NULL, *w;
	size_t col = 8; /* "Subject:" */

	buf_printf(b, "Subject:");
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (col > 8 && col + 1 + strlen(w) > 78) {
			buf_printf(b, "\n");
			col = 0;
		}
		buf_printf(b, " %s", w);
		col += 1 + strlen(w);
	}
	buf_printf(b, "\n");
	free(copy);
}

/* The one file in dir ending in ext, or NULL. */
static char *find_ext(const char *dir, const char *ext)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *r = NULL;

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name), el = strlen(ext);

		if (l > el && !strcmp(de->d_name + l - el, ext) && !r)
			r = xasprintf("%s/%s", dir, de->d_name);
	}
	if (d)
		closedir(d);
	return r;
}

/* "[PATCH v2 1/2] ...": 2; no vN: 1 */
static int subject_version(const char *s)
{
	const char *e = s[0] == '[' ? strchr(s, ']') : NULL, *p;

	for (p = s; e && p < e; p++)
		if (*p == 'v' && (p[-1] == ' ' || p[-1] == '[') && p[1] >= '1' && p[1] <= '9')
			return atoi(p + 1);
	return 1;
}

static char *sha256_file(const char *path)
{
	char *argv[] = { "sha256sum", "--", (char *)path, NULL };
	struct buf out = { 0 };
	char *s = NULL;

	if (run_argv(argv, &out) == 0 && out.len >= 64)
		s = strndup(out.data, 64);
	buf_free(&out);
	return s;
}

/* b4's am-ready mbox split into its messages (separated by "From git@z ..." lines). */
static char **mbx_messages(char *text, size_t *n)
{
	static const char sep[] = "From git@z Thu Jan  1 00:00:00 1970\n";
	char **v = NULL, *p = text;

	*n = 0;
	while ((p = strstr(p, sep))) {
		char *start = p + strlen(sep), *next = strstr(start, sep);

		v = xrealloc(v, (*n + 2) * sizeof(*v));
		v[(*n)++] = next ? strndup(start, (size_t)(next - start)) : xstrdup(start);
		v[*n] = NULL;
		p = start;
	}
	return v;
}

/* why b4 am found no series: its last line that is not a traceback's */
static void b4_failed(struct buf *b4out, const char *mbox, const char *msgid, char *why, size_t len)
{
	char *last = NULL, *l, *save = NULL;

	buf_append(b4out, "", 1);
	for (l = strtok_r(b4out->data, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strncmp(l, "  File ", 7) && l[0] != ' ' && l[0] != '^' &&
		    !strstr(l, "OFFLINE mode"))
			last = l;
	snprintf(why, len, "b4 am found no series in %s%s%s%s (b4: %s)", mbox,
		 msgid ? " for message-id <" : "", msgid ? msgid : "", msgid ? ">" : "",
		 last ? last : "no message it could read; is it an mbox file?");
}

/* The patch's own Message-Id, without <>: patchwork finds it by it. */
static char *bare_msgid(const char *msg)
{
	char *id = header(msg, "Message-Id");
	size_t il = id ? strlen(id) : 0;

	if (id && id[0] == '<' && il > 1 && id[il - 1] == '>') {
		memmove(id, id + 1, il - 2);
		id[il - 2] = '\0';
	}
	return id ? id : xstrdup("");
}

/* The next patch of the series: b4's quilt file qdir/name (its headers and body), under
 * the subject of its message msg, written to pdir as a git format-patch file; s gets its
 * subject and message-id.  0, -EINVAL (b4's file unreadable) or -EIO, with why. */
static int series_patch(struct series *s, const char *qdir, const char *name_q, const char *msg,
			const char *pdir, char *why, size_t len)
{
	struct buf pdb = { 0 }, *pd = &pdb;
	char *qp = xasprintf("%s/%s", qdir, name_q), *qt = NULL, *body, *from, *date;
	char *subj, *full = header(msg, "Subject"), *name, *dst;
	size_t ql;
	int ret = 0;

	if (read_file(qp, &qt, &ql) || !(body = strstr(qt, "\n\n")) || !full) {
		snprintf(why, len, "b4 am: cannot read %s", qp);
		free(qp);
		free(qt);
		free(full);
		return -EINVAL;
	}
	body[1] = '\0';
	body += 2;
	from = header(qt, "From");
	date = header(qt, "Date");
	subj = header(qt, "Subject");
	buf_printf(pd, "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n");
	buf_printf(pd, "From: %s\nDate: %s\n", from ? from : "", date ? date : "");
	put_subject(pd, full);
	buf_printf(pd, "\n");
	buf_append(pd, body, strlen(body));
	name = patch_name(s->n + 1, subj ? subj : full);
	dst = xasprintf("%s/%s", pdir, name);
	if (write_file_atomic(dst, pd->data, pd->len)) {
		snprintf(why, len, "cannot write %s", dst);
		ret = -EIO;
	}
	if (!s->n) {
		s->msgid = header(msg, "Message-Id");
		s->subject = xstrdup(full);
		s->version = subject_version(full);
	}
	s->msgids[s->n] = bare_msgid(msg);
	s->subjects[s->n++] = full;
	free(from);
	free(date);
	free(subj);
	free(name);
	free(dst);
	free(qt);
	free(qp);
	buf_free(pd);
	return ret;
}

/* A cover letter is the message a reply goes to. */
static void cover_letter(struct series *s, const char *out)
{
	char *l = find_ext(out, ".cover"), *text = NULL;
	size_t tlen;

	if (l && !read_file(l, &text, &tlen)) {
		char *id = header(text, "Message-Id"), *cs = header(text, "Subject");

		if (id && cs) {
			free(s->msgid);
			free(s->subject);
			s->msgid = id;
			s->subject = cs;
		} else {
			free(id);
			free(cs);
		}
	}
	free(text);
	free(l);
}

/* The series' directory in the cache (dest: made of the mbox's sha256 and the message-id)
 * and a fresh work directory beside it; 0 or -errno with why. */
static int series_workdir(const char *cache, const char *sha, const char *msgid, char **dest,
			  char **work, char *why, size_t len)
{
	char *sd = xasprintf("%s/series", cache);
	size_t i;
	int ret = 0;

	*dest = xasprintf("%s/series/%.16s-%s", cache, sha, msgid ? msgid : "first");
	for (i = strlen(cache) + 8; (*dest)[i]; i++)
		if ((*dest)[i] == '/' || (*dest)[i] == ' ')
			(*dest)[i] = '_';
	*work = xasprintf("%s/series/tmp.XXXXXX", cache);
	mkdir_p(sd, 0755);
	free(sd);
	if (!mkdtemp(*work)) {
		snprintf(why, len, "mkdtemp %s: %s", *work, strerror(errno));
		ret = -errno;
		free(*work);
		*work = NULL;
	}
	return ret;
}

/* "<id>" -> "id" in place (NULL: nothing) */
static void strip_angles(char *id)
{
	size_t l = id ? strlen(id) : 0;

	if (!id || id[0] != '<')
		return;
	memmove(id, id + 1, l);
	if (l > 1 && id[l - 2] == '>')
		id[l - 2] = '\0';
}

int series_from_mbox(const char *mbox, const char *msgid, struct series *s, char *why, size_t len)
{
	char *cache = cache_dir(), *sha = NULL, *work = NULL, *out = NULL, *dest = NULL;
	char *mbx = NULL, *text = NULL, *quilt = NULL, *series = NULL, *qdir = NULL, **msgs = NULL;
	char *argv[] = { "sh",
			 "-c",
			 "exec b4 --offline-mode am -C -Q -m \"$1\" -o \"$2\" ${3:+\"$3\"} 2>&1",
			 "sh",
			 (char *)mbox,
			 NULL,
			 (char *)(msgid ? msgid : ""),
			 NULL };
	struct buf b4out = { 0 };
	size_t tlen, nm = 0;
	int ret = -EINVAL;

	memset(s, 0, sizeof(*s));
	if (!cache) {
		snprintf(why, len, "no cache directory (set ABLAB_CACHE)");
		return -ENOENT;
	}
	if (!is_file(mbox) || !(sha = sha256_file(mbox))) {
		snprintf(why, len, "%s: no such file", mbox);
		ret = -ENOENT;
		goto out;
	}
	ret = series_workdir(cache, sha, msgid, &dest, &work, why, len);
	if (ret)
		goto out;
	ret = -EINVAL;
	out = xasprintf("%s/b4", work);
	mkdir_p(out, 0755);
	argv[5] = out;
	if (run_argv(argv, &b4out) != 0 || !(mbx = find_ext(out, ".mbx"))) {
		b4_failed(&b4out, mbox, msgid, why, len);
		goto out;
	}
	qdir = xasprintf("%.*s.patches", (int)(strlen(mbx) - 4), mbx);
	series = xasprintf("%s/series", qdir);
	if (read_file(mbx, &text, &tlen) || !(msgs = mbx_messages(text, &nm)) || !nm) {
		snprintf(why, len, "b4 am wrote no patches for %s", mbox);
		goto out;
	}
	if (read_file(series, &quilt, &tlen)) {
		snprintf(why, len, "b4 am wrote no quilt series file %s", series);
		goto out;
	}
	{
		char *l, *save = NULL, *pdir = xasprintf("%s/patches", work);

		mkdir_p(pdir, 0755);
		s->subjects = xcalloc(nm + 1, sizeof(*s->subjects));
		s->msgids = xcalloc(nm + 1, sizeof(*s->msgids));
		for (l = strtok_r(quilt, "\n", &save); l && s->n < nm;
		     l = strtok_r(NULL, "\n", &save)) {
			ret = series_patch(s, qdir, l, msgs[s->n], pdir, why, len);
			if (ret) {
				free(pdir);
				goto out;
			}
		}
		cover_letter(s, out);
		/* the same inputs give the same files: a directory already there is kept */
		if (rename(pdir, dest) && !is_dir(dest)) {
			snprintf(why, len, "rename %s %s: %s", pdir, dest, strerror(errno));
			free(pdir);
			ret = -errno;
			goto out;
		}
		free(pdir);
	}
	strip_angles(s->msgid);
	if (!s->msgid) {
		snprintf(why, len, "the series' first message in %s has no Message-Id", mbox);
		ret = -EINVAL;
		goto out;
	}
	s->dir = dest;
	dest = NULL;
	ret = 0;
out:
	if (msgs)
		strv_free(msgs);
	if (work)
		remove_tree(work);
	if (ret)
		series_free(s);
	buf_free(&b4out);
	free(series);
	free(qdir);
	free(mbx);
	free(text);
	free(quilt);
	free(out);
	free(work);
	free(dest);
	free(sha);
	free(cache);
	return ret;
}
