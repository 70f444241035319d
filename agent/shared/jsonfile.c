// SPDX-License-Identifier: GPL-2.0-only
/* Strict JSON files with file:line:col errors (board and job definitions). */
#include "shared/jsonfile.h"
#include "shared/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jfile_offset_linecol(const char *text, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

int jfile_load(struct jfile *jf, const char *path)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	size_t end;
	int ret, line, col;

	memset(jf, 0, sizeof(*jf));
	jf->path = xstrdup(path);
	ret = read_file(path, &jf->text, &jf->len);
	if (ret) {
		err_msg("%s: cannot read: %s", path, strerror(-ret));
		return ret;
	}
	if (strlen(jf->text) != jf->len) {
		jfile_offset_linecol(jf->text, strlen(jf->text), &line, &col);
		err_msg("%s:%d:%d: NUL byte in file; save it as plain UTF-8 text", path, line, col);
		return -EINVAL;
	}
	tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	/* length + 1 so that the terminating NUL ends a top-level number */
	jf->root = json_tokener_parse_ex(tok, jf->text, (int)jf->len + 1);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (jerr != json_tokener_success || !jf->root) {
		/* json-c's parse end is the offending character (past the end: end of file) */
		jfile_offset_linecol(jf->text, end < jf->len ? end : jf->len, &line, &col);
		err_msg("%s:%d:%d: invalid JSON: %s", path, line, col,
			jerr == json_tokener_continue ? "unexpected end of file" :
							json_tokener_error_desc(jerr));
		return -EINVAL;
	}
	for (; end < jf->len; end++) {
		char c = jf->text[end];

		if (c == '\0')
			break;
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			jfile_offset_linecol(jf->text, end, &line, &col);
			err_msg("%s:%d:%d: trailing characters after the JSON document", path, line,
				col);
			return -EINVAL;
		}
	}
	if (!json_object_is_type(jf->root, json_type_object)) {
		err_msg("%s:1:1: top level must be a JSON object", path);
		return -EINVAL;
	}
	return 0;
}

void jfile_free(struct jfile *jf)
{
	if (jf->root)
		json_object_put(jf->root);
	free(jf->text);
	free(jf->path);
	memset(jf, 0, sizeof(*jf));
}

void jfile_locate_key(const struct jfile *jf, const char *key, int *line, int *col)
{
	char *pat = xasprintf("\"%s\"", key);
	const char *p = jf->text;

	*line = 1;
	*col = 1;
	while (p && (p = strstr(p, pat))) {
		const char *q = p + strlen(pat);

		while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			q++;
		if (*q == ':') {
			jfile_offset_linecol(jf->text, (size_t)(p - jf->text), line, col);
			break;
		}
		p++;
	}
	free(pat);
}

static const char *jtype_name(enum jtype t)
{
	switch (t) {
	case J_STRING:
		return "a string";
	case J_INT:
		return "an integer";
	case J_BOOL:
		return "true or false";
	case J_OBJECT:
		return "an object";
	case J_ARRAY_STRING:
		return "an array of strings";
	case J_ARRAY_INT:
		return "an array of integers";
	default:
		return "any value";
	}
}

static bool type_ok(json_object *v, enum jtype t)
{
	size_t i;

	switch (t) {
	case J_STRING:
		return json_object_is_type(v, json_type_string);
	case J_INT:
		return json_object_is_type(v, json_type_int);
	case J_BOOL:
		return json_object_is_type(v, json_type_boolean);
	case J_OBJECT:
		return json_object_is_type(v, json_type_object);
	case J_ARRAY_STRING:
	case J_ARRAY_INT:
		if (!json_object_is_type(v, json_type_array))
			return false;
		for (i = 0; i < json_object_array_length(v); i++) {
			json_object *e = json_object_array_get_idx(v, i);

			if (!json_object_is_type(e, t == J_ARRAY_STRING ? json_type_string :
									  json_type_int))
				return false;
		}
		return true;
	default:
		return true;
	}
}

static void problem(const struct jfile *jf, const char *key, const char *jpath, const char *fmt,
		    const char *a, const char *b)
{
	int line, col;
	char *msg = xasprintf(fmt, a, b);

	jfile_locate_key(jf, key, &line, &col);
	err_msg("%s:%d:%d: %s: %s", jf->path, line, col, jpath, msg);
	free(msg);
}

/* Levenshtein distance, for "did you mean" (keys are short). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

int jfile_validate(const struct jfile *jf, json_object *obj, const char *jpath,
		   const struct jfield *fields)
{
	const struct jfield *f, *suggested[32];
	size_t nsugg = 0, i;
	int bad = 0;

	json_object_object_foreach(obj, key, val)
	{
		char *path = *jpath ? xasprintf("%s.%s", jpath, key) : xstrdup(key);

		for (f = fields; f->key; f++)
			if (!strcmp(f->key, key))
				break;
		if (!f->key) {
			const struct jfield *best = NULL;
			struct buf known = { 0 };

			for (f = fields; f->key; f++) {
				buf_printf(&known, "%s%s", f == fields ? "" : ", ", f->key);
				if (edit_distance(key, f->key) <= 2 &&
				    !json_object_object_get_ex(obj, f->key, NULL))
					best = f;
			}
			if (best) {
				char *hint = xasprintf("\"%s\"", best->key);

				problem(jf, key, path, "unknown key; did you mean %s?%s", hint, "");
				free(hint);
				if (nsugg < ARRAY_SIZE(suggested))
					suggested[nsugg++] = best;
			} else {
				problem(jf, key, path, "unknown key; expected one of: %s%s",
					known.data ? known.data : "(none)", "");
			}
			buf_free(&known);
			bad = 1;
		} else if (!type_ok(val, f->type)) {
			problem(jf, key, path, "must be %s%s", jtype_name(f->type), "");
			bad = 1;
		} else if (f->type == J_INT && f->min < f->max &&
			   (json_object_get_int64(val) < f->min ||
			    json_object_get_int64(val) > f->max)) {
			char range[64];

			snprintf(range, sizeof(range), "%ld..%ld", f->min, f->max);
			problem(jf, key, path, "out of range; must be %s%s", range, "");
			bad = 1;
		} else if (f->type == J_OBJECT && f->sub) {
			if (jfile_validate(jf, val, path, f->sub))
				bad = 1;
		}
		free(path);
	}
	for (f = fields; f->key; f++) {
		for (i = 0; i < nsugg; i++)
			if (suggested[i] == f)
				break;
		if (i < nsugg)
			continue; /* already reported as a misspelling */
		if (f->required && !json_object_object_get_ex(obj, f->key, NULL)) {
			int line = 1, col = 1;
			char *path = *jpath ? xasprintf("%s.%s", jpath, f->key) : xstrdup(f->key);

			if (*jpath) {
				const char *last = strrchr(jpath, '.');

				jfile_locate_key(jf, last ? last + 1 : jpath, &line, &col);
			}
			err_msg("%s:%d:%d: %s: required key missing (%s)", jf->path, line, col,
				path, jtype_name(f->type));
			free(path);
			bad = 1;
		}
	}
	return bad ? -EINVAL : 0;
}

const char *jstr(json_object *obj, const char *key)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

long jint(json_object *obj, const char *key, long dflt)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return dflt;
	return (long)json_object_get_int64(v);
}

bool jbool(json_object *obj, const char *key, bool dflt)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_boolean))
		return dflt;
	return json_object_get_boolean(v);
}

json_object *jobj(json_object *obj, const char *key)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

char **jstrv(json_object *obj, const char *key, size_t *n)
{
	json_object *a = jobj(obj, key);
	size_t i, len;
	char **v;

	len = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	v = xcalloc(len + 1, sizeof(*v));
	for (i = 0; i < len; i++)
		v[i] = xstrdup(json_object_get_string(json_object_array_get_idx(a, i)));
	if (n)
		*n = len;
	return v;
}

void strv_free(char **v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}
