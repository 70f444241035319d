// SPDX-License-Identifier: GPL-2.0-only
/* Reports: the mailing-list table (control / patched / change) with n,
 * separation and significance; JSON for machines.  The boot is the unit:
 * every number here is computed from per-boot means. */
#include "report.h"
#include "stats.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOOTSTRAP_SEED 20260910ULL

void fmt_time(char *out, size_t len, double ns)
{
	double a = fabs(ns);

	if (isnan(ns))
		snprintf(out, len, "-");
	else if (a < 1000.0)
		snprintf(out, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(out, len, "%.3f us", ns / 1e3);
	else if (a < 1e9)
		snprintf(out, len, "%.3f ms", ns / 1e6);
	else
		snprintf(out, len, "%.3f s", ns / 1e9);
}

void fmt_change(char *out, size_t len, double rel)
{
	double pct = rel * 100.0, a = fabs(pct);
	int dec = 1;

	if (isnan(rel)) {
		snprintf(out, len, "-");
		return;
	}
	if (a > 0 && a < 1.0)
		dec = 1 - (int)floor(log10(a));
	if (dec > 6)
		dec = 6;
	snprintf(out, len, "%+.*f%%", dec, pct);
}

struct row {
	char board[64], cpu[64], family[32], scenario[64], kind[16], state[8], op[16];
	int64_t size;
	double v[2][256];	/* per-boot values: mean ns, or lost bytes */
	size_t n[2];
};

static void size_label(char *out, size_t len, int64_t size)
{
	if (size >= (1 << 20) && size % (1 << 20) == 0)
		snprintf(out, len, "%" PRId64 " MiB", size >> 20);
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(out, len, "%" PRId64 " KiB", size >> 10);
	else
		snprintf(out, len, "%" PRId64 " B", size);
}

static void row_label(const struct row *r, char *out, size_t len)
{
	char sz[32];

	size_label(sz, sizeof(sz), r->size);
	if (!strcmp(r->kind, "preserve"))
		snprintf(out, len, "%s, %s, lost of %s", r->cpu, r->family, sz);
	else if (!strcmp(r->op, "null"))
		snprintf(out, len, "%s, %s, null call", r->cpu, r->family);
	else if (strcmp(r->op, "map_unmap"))
		snprintf(out, len, "%s, %s, %s %s %s", r->cpu, r->family, sz, r->state, r->op);
	else
		snprintf(out, len, "%s, %s, %s %s", r->cpu, r->family, sz, r->state);
}

static const char *sep_text(enum separation s)
{
	switch (s) {
	case SEP_B_BELOW: return "all patched boots below all control boots";
	case SEP_B_ABOVE: return "all patched boots above all control boots";
	default: return "overlapping";
	}
}

int report_campaign(struct store *st, int64_t campaign, const char *format, double alpha)
{
	static const char *const q =
		"SELECT bo.name, bo.cpu, bo.family, s.scenario, s.kind, min(s.state), min(s.op), "
		" max(s.size), b.variant, b.id, avg(s.mean_ns), avg(s.lost_bytes) "
		"FROM boots b JOIN samples s ON s.boot_id = b.id JOIN boards bo ON bo.id = b.board_id "
		"WHERE b.campaign_id = $1::int AND b.status = 'ok' "
		"GROUP BY bo.name, bo.cpu, bo.family, s.scenario, s.kind, b.variant, b.id "
		"ORDER BY bo.name, s.kind DESC, min(s.op) = 'null', max(s.size), min(s.state) DESC, "
		" s.scenario, b.id";
	static const char *const qc =
		"SELECT c.order_kind, c.batches, c.status, c.trigger, "
		" (SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND b.status = 'failed'), "
		" (SELECT translate(string_agg(left(variant, 1), '' ORDER BY seq), 'cp', 'AB') FROM boots b "
		"   WHERE b.campaign_id = c.id AND b.status = 'ok') "
		"FROM campaigns c WHERE c.id = $1::int";
	char ids[32];
	const char *p[1] = { ids };
	struct row *rows = NULL;
	size_t nrows = 0, i;
	PGresult *r, *rc;
	bool json = !strcmp(format, "json");
	json_object *jroot = NULL, *jrows = NULL;
	int ret = 0;

	if (!json && strcmp(format, "text")) {
		err_msg("report: unknown format \"%s\" (text, json)", format);
		return -EINVAL;
	}
	snprintf(ids, sizeof(ids), "%" PRId64, campaign);
	rc = store_query(st, qc, 1, p);
	if (!rc)
		return -EIO;
	if (PQntuples(rc) == 0) {
		err_msg("no campaign %" PRId64 " in the database", campaign);
		PQclear(rc);
		return -ENOENT;
	}
	r = store_query(st, q, 1, p);
	if (!r) {
		PQclear(rc);
		return -EIO;
	}
	for (i = 0; i < (size_t)PQntuples(r); i++) {
		struct row *w = nrows ? &rows[nrows - 1] : NULL;
		int var = !strcmp(PQgetvalue(r, (int)i, 8), "patched");
		bool pres = !strcmp(PQgetvalue(r, (int)i, 4), "preserve");

		if (!w || strcmp(w->board, PQgetvalue(r, (int)i, 0)) ||
		    strcmp(w->scenario, PQgetvalue(r, (int)i, 3))) {
			rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
			w = &rows[nrows++];
			memset(w, 0, sizeof(*w));
			snprintf(w->board, sizeof(w->board), "%s", PQgetvalue(r, (int)i, 0));
			snprintf(w->cpu, sizeof(w->cpu), "%s", PQgetvalue(r, (int)i, 1));
			snprintf(w->family, sizeof(w->family), "%s", PQgetvalue(r, (int)i, 2));
			snprintf(w->scenario, sizeof(w->scenario), "%s", PQgetvalue(r, (int)i, 3));
			snprintf(w->kind, sizeof(w->kind), "%s", PQgetvalue(r, (int)i, 4));
			snprintf(w->state, sizeof(w->state), "%s", PQgetvalue(r, (int)i, 5));
			snprintf(w->op, sizeof(w->op), "%s", PQgetvalue(r, (int)i, 6));
			w->size = strtoll(PQgetvalue(r, (int)i, 7), NULL, 10);
		}
		if (w->n[var] < ARRAY_SIZE(w->v[var]))
			w->v[var][w->n[var]++] = strtod(PQgetvalue(r, (int)i, pres ? 11 : 10), NULL);
	}
	PQclear(r);

	if (json) {
		jroot = json_object_new_object();
		jrows = json_object_new_array();
		json_object_object_add(jroot, "campaign", json_object_new_int64(campaign));
		json_object_object_add(jroot, "order", json_object_new_string(PQgetvalue(rc, 0, 0)));
		json_object_object_add(jroot, "batches",
				       json_object_new_int(atoi(PQgetvalue(rc, 0, 1))));
		json_object_object_add(jroot, "status", json_object_new_string(PQgetvalue(rc, 0, 2)));
		json_object_object_add(jroot, "alpha", json_object_new_double(alpha));
		json_object_object_add(jroot, "rows", jrows);
	} else {
		printf("campaign %" PRId64 " (%s, %s): boots in order %s (A = control, B = patched), %s batches per scenario "
		       "per boot, %s failed attempt(s)\n\n", campaign, PQgetvalue(rc, 0, 3),
		       PQgetvalue(rc, 0, 2), PQgetvalue(rc, 0, 5), PQgetvalue(rc, 0, 1),
		       PQgetvalue(rc, 0, 4));
		printf("  %-40s %12s %12s %10s %5s %7s  %s\n", "", "control", "patched", "change",
		       "n", "p", "separation");
	}
	for (i = 0; i < nrows; i++) {
		struct row *w = &rows[i];
		bool pres = !strcmp(w->kind, "preserve");
		char label[160], a[32], b[32], c[32], pv[32];
		struct ab_result ab;
		int verdict;

		row_label(w, label, sizeof(label));
		if (stats_ab(w->v[0], w->n[0], w->v[1], w->n[1], BOOTSTRAP_SEED, 0, &ab)) {
			memset(&ab, 0, sizeof(ab));
			ab.rel_change = ab.p_mwu = ab.ci_lo = ab.ci_hi = NAN;
			ab.a.mean = w->n[0] ? w->v[0][0] : NAN;
			ab.b.mean = w->n[1] ? w->v[1][0] : NAN;
		}
		verdict = stats_verdict(&ab, alpha);
		if (json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "board", json_object_new_string(w->board));
			json_object_object_add(o, "scenario", json_object_new_string(w->scenario));
			json_object_object_add(o, "label", json_object_new_string(label));
			json_object_object_add(o, "kind", json_object_new_string(w->kind));
			json_object_object_add(o, "size", json_object_new_int64(w->size));
			json_object_object_add(o, "unit", json_object_new_string(pres ? "bytes lost"
										: "ns"));
			json_object_object_add(o, "n_control", json_object_new_int((int)w->n[0]));
			json_object_object_add(o, "n_patched", json_object_new_int((int)w->n[1]));
#define ADD_D(k, v) json_object_object_add(o, k, isnan(v) ? NULL : json_object_new_double(v))
			ADD_D("control_mean", ab.a.mean);
			ADD_D("patched_mean", ab.b.mean);
			ADD_D("control_sd", ab.a.sd);
			ADD_D("patched_sd", ab.b.sd);
			ADD_D("rel_change", ab.rel_change);
			ADD_D("ci_lo", ab.ci_lo);
			ADD_D("ci_hi", ab.ci_hi);
			ADD_D("p_mwu", ab.p_mwu);
			ADD_D("p_min", ab.p_min);
			ADD_D("welch_p", ab.welch_p);
#undef ADD_D
			json_object_object_add(o, "separation", json_object_new_string(
				ab.sep == SEP_B_BELOW ? "below" : ab.sep == SEP_B_ABOVE ? "above"
											: "overlap"));
			json_object_object_add(o, "verdict", json_object_new_string(
				verdict == 1 ? "significant" : verdict == 0 ? "not significant"
									    : "too few boots"));
			json_object_array_add(jrows, o);
			continue;
		}
		if (pres) {
			snprintf(a, sizeof(a), "%.0f B", ab.a.mean);
			snprintf(b, sizeof(b), "%.0f B", ab.b.mean);
			snprintf(c, sizeof(c), "%+.0f B", ab.b.mean - ab.a.mean);
		} else {
			fmt_time(a, sizeof(a), ab.a.mean);
			fmt_time(b, sizeof(b), ab.b.mean);
			fmt_change(c, sizeof(c), ab.rel_change);
		}
		if (verdict < 0)
			snprintf(pv, sizeof(pv), "n/a");
		else
			snprintf(pv, sizeof(pv), "%.3f%s", ab.p_mwu, verdict ? "" : "~");
		printf("  %-40s %12s %12s %10s %2zu+%-2zu %7s  %s\n", label, a, b, c, w->n[0],
		       w->n[1], pv, pres && ab.a.mean == ab.b.mean ? "equal" : sep_text(ab.sep));
	}
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(jroot, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_SPACED));
		json_object_put(jroot);
	} else if (nrows) {
		struct ab_result ab;

		stats_ab(rows[0].v[0], rows[0].n[0], rows[0].v[1], rows[0].n[1], 1, 10, &ab);
		printf("\nMeans of per-boot means (each boot's mean over its batches).  p: exact "
		       "two-sided\nMann-Whitney U on boot means, \"~\" = not significant at alpha "
		       "%.2f;\n\"n/a\": with %zu+%zu boots the smallest possible p is %.3f, so "
		       "no difference\ncan be significant: add boots.\n", alpha, rows[0].n[0],
		       rows[0].n[1], ab.p_min);
	} else {
		printf("  (no successful boots)\n");
		ret = -ENOENT;
	}
	PQclear(rc);
	free(rows);
	return ret;
}
