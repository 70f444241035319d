// SPDX-License-Identifier: GPL-2.0-only
/* `ablab boards`' renderer (cmd_boards_to, web.h; also the /api/v1/boards answer): every
 * board file with its backends, lock holder and last health check, and every board the
 * database knows that was used by path.  The command is cmd/cmd-board.c. */
#include "web/web.h"
#include "board.h"
#include "backend/boot.h"
#include "backend/console.h"
#include "report/query.h"
#include "web/web-int.h"
#include "shared/opt.h"
#include "store/store-board.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "shared/util.h"

#include <dirent.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of boards/NAME.json, sorted. */
static char **board_names(size_t *n)
{
	DIR *d = opendir(board_dir());
	struct dirent *e;
	char **v = NULL;

	*n = 0;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len > 5 && !strcmp(e->d_name + len - 5, ".json") && e->d_name[0] != '.') {
			v = xrealloc(v, (*n + 2) * sizeof(*v));
			v[(*n)++] = strndup(e->d_name, len - 5);
			v[*n] = NULL;
		}
	}
	if (d)
		closedir(d);
	if (v)
		qsort(v, *n, sizeof(*v), name_cmp);
	return v;
}

static void backend_summary(const struct board *b, char *out, size_t len)
{
	char con[120];

	console_describe(b, con, sizeof(con));
	snprintf(out, len, "console %s; power %s; boot %s", con, b->power_type, b->boot_method);
}

/* One board: CPU, backends, lock holder, last health check (and, for a
 * board used by path, its file); arr: appended to it as JSON instead. */
static void print_board(struct store *st, const struct board *b, const char *file, FILE *out,
			json_object *arr)
{
	char sum[300], who[300], health[300] = "never checked";
	json_object *jh = NULL;

	backend_summary(b, sum, sizeof(sum));
	board_lock_holder(b, who, sizeof(who));
	if (st) {
		struct store_rows r = { 0 };

		if (!store_health_last(st, b->name, &r) && r.nrows == 1) {
			bool ok = !strcmp(store_text(&r, 0, HL_OK), "t");

			snprintf(health, sizeof(health), "%s %s (%s)", ok ? "ok" : "FAILED",
				 store_text(&r, 0, HL_CHECKED),
				 ok ? store_text(&r, 0, HL_UNAME_R) : store_text(&r, 0, HL_ERROR));
			if (arr) {
				jh = json_object_new_object();
				json_object_object_add(jh, "ok", json_object_new_boolean(ok));
				json_object_object_add(
					jh, "checked",
					json_object_new_string(store_text(&r, 0, HL_CHECKED)));
				json_object_object_add(
					jh, "uname_r",
					json_object_new_string(store_text(&r, 0, HL_UNAME_R)));
				json_object_object_add(
					jh, "error",
					json_object_new_string(store_text(&r, 0, HL_ERROR)));
			}
		}
		store_rows_free(&r);
	}
	if (arr) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(b->name));
		json_object_object_add(o, "cpu", json_object_new_string(b->cpu));
		json_object_object_add(o, "emulated", json_object_new_boolean(b->emulated));
		json_object_object_add(o, "file", file ? json_object_new_string(file) : NULL);
		json_object_object_add(o, "backends", json_object_new_string(sum));
		json_object_object_add(o, "lock", *who ? json_object_new_string(who) : NULL);
		json_object_object_add(o, "health", jh);
		json_object_array_add(arr, o);
		return;
	}
	fprintf(out, "%-14s %s%s\n", b->name, b->cpu, b->emulated ? " (emulated)" : "");
	if (file)
		fprintf(out, "  %-12s %s (used by path)\n", "file", file);
	fprintf(out, "  %-12s %s\n  %-12s %s\n  %-12s %s\n", "backends", sum, "lock",
		*who ? who : "free", "health", health);
}

/* Boards the database knows that are not in the board directory: used by
 * path (`ablab ab --board FILE`); the newest campaign says which file. */
static size_t boards_by_path(struct store *st, char **names, size_t n, FILE *out, json_object *arr)
{
	struct store_rows r = { 0 };
	size_t shown = 0, i;

	store_boards_known(st, &r);
	for (i = 0; i < r.nrows; i++) {
		const char *name = store_text(&r, i, BK_NAME),
			   *file = store_text(&r, i, BK_BOARD_FILE);
		bool known = store_cell(&r, i, BK_BOARD_FILE) != NULL;
		struct board b = { 0 };
		size_t k;

		for (k = 0; k < n && strcmp(names[k], name); k++)
			;
		if (k < n)
			continue;
		shown++;
		if (known && is_file(file) && !board_load(&b, file) && !strcmp(b.name, name)) {
			print_board(st, &b, file, out, arr);
			board_free(&b);
			continue;
		}
		board_free(&b);
		if (arr) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "name", json_object_new_string(name));
			json_object_object_add(o, "cpu",
					       json_object_new_string(store_text(&r, i, BK_CPU)));
			json_object_object_add(o, "file",
					       known ? json_object_new_string(file) : NULL);
			json_object_object_add(o, "file_gone", json_object_new_boolean(known));
			json_object_object_add(
				o, "last_used",
				*store_text(&r, i, BK_LAST_BOOT) ?
					json_object_new_string(store_text(&r, i, BK_LAST_BOOT)) :
					NULL);
			json_object_array_add(arr, o);
			continue;
		}
		fprintf(out, "%-14s %s\n  %-12s %s\n  %-12s %s\n", name, store_text(&r, i, BK_CPU),
			"file", !known ? "unknown (only ingested or LAVA boots)" : file,
			"last used",
			*store_text(&r, i, BK_LAST_BOOT) ? store_text(&r, i, BK_LAST_BOOT) :
							   "never");
		if (known)
			fprintf(out, "  %-12s that board file is gone or no longer defines %s\n",
				"note", name);
	}
	store_rows_free(&r);
	return shown;
}

/* One board's phase medians (its "phases" JSON, store_board_phases()) as a text line. */
static void phases_line(FILE *out, const char *board, json_object *o)
{
	json_object *m = NULL, *v;
	int p;

	json_object_object_get_ex(o, "median_ms", &m);
	fprintf(out, "%-14s %5d", board, (int)web_jnum(o, "boots"));
	for (p = 0; p < PHASE__N; p++) {
		if (m && json_object_object_get_ex(m, boot_phase_names[p], &v))
			fprintf(out, " %11.0f", json_object_get_double(v));
		else
			fprintf(out, " %11s", "-");
	}
	if (json_object_object_get_ex(o, "load_bytes", &v))
		fprintf(out, "  %.0f B at %.0f KiB/s", json_object_get_double(v),
			web_jnum(o, "load_kib_s"));
	if (json_object_object_get_ex(o, "boots_per_hour", &v))
		fprintf(out, "  %.1f boots/h (%s)", json_object_get_double(v),
			jstr(o, "boots_per_hour_from") &&
					!strcmp(jstr(o, "boots_per_hour_from"), "wall") ?
				"wall time between boots" :
				"power on to off");
	fputc('\n', out);
}

/* `ablab boards --phases`: each board's median phase times since WHEN (NULL: 30 days). */
static int boards_phases(FILE *out, const char *since, bool json)
{
	char when[64];
	int date_only,
		age = query_parse_when(since ? since : "30d", when, sizeof(when), &date_only);
	json_object *arr = json ? json_object_new_array() : NULL;
	struct store_rows r = { 0 };
	struct store st;
	size_t i;
	int p;

	if (age < 0) {
		err_msg("boards: --since: \"%s\" is not a date (YYYY-MM-DD[ HH:MM[:SS]]) or an age (30d, 12h, 2w)",
			since);
		return 2;
	}
	if (store_open(&st, opt_db))
		return 1;
	if (store_board_phases(&st, 0, NULL, age ? NULL : when, age ? when : NULL, &r)) {
		store_close(&st);
		return 1;
	}
	if (!json) {
		fprintf(out, "median ms after power on, ok boots with phases since %s\n%-14s %5s",
			since ? since : "30d", "board", "boots");
		for (p = 0; p < PHASE__N; p++)
			fprintf(out, " %11s", boot_phase_names[p]);
		fputc('\n', out);
	}
	for (i = 0; i < r.nrows; i++) {
		json_object *o = json_tokener_parse(store_text(&r, i, BP_JSON));

		if (!o)
			continue;
		if (arr) {
			json_object_object_add(o, "board",
					       json_object_new_string(store_text(&r, i, BP_BOARD)));
			json_object_array_add(arr, o);
			continue;
		}
		phases_line(out, store_text(&r, i, BP_BOARD), o);
		json_object_put(o);
	}
	if (arr) {
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_SPACED));
		json_object_put(arr);
	} else if (!r.nrows) {
		fprintf(out,
			"no ok boot with phases since %s (boots before phases were recorded, LAVA and ingested boots have none)\n",
			since ? since : "30d");
	}
	store_rows_free(&r);
	store_close(&st);
	return 0;
}

int cmd_boards_to(FILE *out, int argc, char **argv)
{
	static const struct option lo[] = { { "format", 1, NULL, 'f' },
					    { "phases", 0, NULL, 'p' },
					    { "since", 1, NULL, 's' },
					    { "help", 0, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	const char *format = "text", *since = NULL;
	bool phases = false;
	json_object *arr = NULL;
	struct store st;
	bool have_db = false;
	size_t n, i, extra = 0;
	char **names;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'f' || c == 'p' || c == 's') {
			format = c == 'f' ? optarg : format;
			since = c == 's' ? optarg : since;
			phases |= c == 'p';
			continue;
		}
		fprintf(c == 'h' ? stdout : stderr,
			"usage: ablab boards [--phases [--since WHEN]] [--format text|json]\n"
			"Every board in %s (the board directory: ABLAB_BOARDS, default ./boards) and every board the database knows that was used by path: its backends, who holds its lock, its last health check.\n"
			"--phases: instead, per board the median of each boot phase (ms after power on: first_byte bootloader loaded banner prompt bench_start bench_end off), the kernel load (bytes, KiB/s) and boots per hour (3600 s / the median wall time between the starts of consecutive ok boots of one campaign; with one boot per campaign, / the median power-on-to-off time), over the ok boots that recorded phases since WHEN (a date YYYY-MM-DD[ HH:MM[:SS]] or an age: 30d, 12h, 2w; default 30d).\n",
			board_dir());
		return c == 'h' ? 0 : 2;
	}
	if (optind < argc || (strcmp(format, "text") && strcmp(format, "json")) ||
	    (since && !phases)) {
		err_msg("boards: usage: ablab boards [--phases [--since WHEN]] [--format text|json]");
		return 2;
	}
	if (phases)
		return boards_phases(out, since, !strcmp(format, "json"));
	if (!strcmp(format, "json"))
		arr = json_object_new_array();
	names = board_names(&n);
	have_db = store_open(&st, opt_db) == 0;
	if (!have_db)
		err_msg("database unreachable: health results and boards used by path not shown");
	for (i = 0; i < n; i++) {
		struct board b;

		if (board_load_by_name(&b, names[i])) {
			if (arr) {
				json_object *o = json_object_new_object();

				json_object_object_add(o, "name", json_object_new_string(names[i]));
				json_object_object_add(o, "invalid", json_object_new_boolean(true));
				json_object_array_add(arr, o);
			} else {
				fprintf(out, "%-14s INVALID board file (see the error above)\n",
					names[i]);
			}
			board_free(&b);
			continue;
		}
		print_board(have_db ? &st : NULL, &b, NULL, out, arr);
		board_free(&b);
	}
	if (have_db) {
		extra = boards_by_path(&st, names, n, out, arr);
		store_close(&st);
	}
	if (arr) {
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_SPACED));
		json_object_put(arr);
	} else if (!n && !extra) {
		fprintf(out,
			"no board files in %s (the board directory: set ABLAB_BOARDS=DIR for another one) and no board used by path in the database\n",
			board_dir());
	}
	strv_free(names);
	return 0;
}
