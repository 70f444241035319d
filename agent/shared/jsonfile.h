/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_JSONFILE_H
#define ABLAB_JSONFILE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* A JSON document read from a file, kept with its text so that errors can
 * name file:line:col. */
struct jfile {
	char *path;
	char *text;
	size_t len;
	json_object *root;
};

/* Parses strictly (JSON_TOKENER_STRICT, no trailing characters).  Errors are
 * printed as "path:line:col: message" and -EINVAL returned; -errno when the
 * file cannot be read. */
int jfile_load(struct jfile *jf, const char *path);
void jfile_free(struct jfile *jf);

/* Schema of one JSON object: allowed keys, their types, required ones. */
enum jtype { J_STRING, J_INT, J_BOOL, J_OBJECT, J_ARRAY_STRING, J_ARRAY_INT, J_ANY };

struct jfield {
	const char *key;
	enum jtype type;
	bool required;
	const struct jfield *sub; /* for J_OBJECT: its schema (NULL = free-form) */
	long min, max; /* for J_INT when min < max */
};

/* Checks obj against fields; prints every problem as
 * "file:line:col: a.b.c: message" and returns -EINVAL if there was one. */
int jfile_validate(const struct jfile *jf, json_object *obj, const char *jpath,
		   const struct jfield *fields);

/* Accessors for validated objects (NULL / dflt when absent). */
const char *jstr(json_object *obj, const char *key);
long jint(json_object *obj, const char *key, long dflt);
bool jbool(json_object *obj, const char *key, bool dflt);
json_object *jobj(json_object *obj, const char *key);
char **jstrv(json_object *obj, const char *key, size_t *n); /* NULL-terminated copy */
void strv_free(char **v);
size_t strv_len(char *const *v); /* NULL: 0 */

/* 1-based line:col of byte offset `off` in text. */
void jfile_offset_linecol(const char *text, size_t off, int *line, int *col);

/* line:col of the first occurrence of "key": in the text (1,1 if none). */
void jfile_locate_key(const struct jfile *jf, const char *key, int *line, int *col);

#endif
