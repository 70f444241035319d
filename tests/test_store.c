// SPDX-License-Identifier: GPL-2.0-only
/* Results database against a real PostgreSQL (the private cluster in
 * $ABLAB_DATA, started by tests/run.sh): schema, one transaction per boot,
 * idempotent re-insert by UUID, report over stored boots. */
#include "board.h"
#include "check.h"
#include "bench/parse.h"
#include "report/report.h"
#include "store/store.h"
#include "store/store-int.h" /* store_query(): a white-box test of the store */
#include "shared/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char v1_log[] =
	"dmabench: v1 start clock_res_ns=1000 timing=auto batches=2 scenarios=2\n"
	"dmabench: v1 result scenario=small-dirty-256B batch=1 size=256 reps=5000 dir=from "
	"op=map_unmap state=dirty timing=iter mean_ns=%d min_ns=300 max_ns=9000 ns_per_KiB=1412\n"
	"dmabench: v1 result scenario=small-dirty-256B batch=2 size=256 reps=5000 dir=from "
	"op=map_unmap state=dirty timing=iter mean_ns=%d min_ns=300 max_ns=9000 ns_per_KiB=1412\n"
	"dmabench: v1 preserve scenario=preserve-409600B batch=1 size=409600 lost=%d\n"
	"dmabench: v1 preserve scenario=preserve-409600B batch=2 size=409600 lost=%d\n"
	"dmabench: v1 done status=0 results=4\n";

static long count(struct store *st, const char *sql, const char *param)
{
	const char *p[1] = { param };
	PGresult *r = store_query(st, sql, param ? 1 : 0, p);
	long n = -1;

	if (r) {
		n = atol(PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	return n;
}

int main(int argc, char **argv)
{
	struct campaign_def cd = { "cli", "abab", 1, 3, 2, "{\"test\": true}" };
	struct kernel_art k[2] = {
		{ .label = "control",
		  .release = "6.1.0-test-control",
		  .zimage_sha256 = "aa",
		  .config_sha256 = "cc",
		  .manifest_json = "{}" },
		{ .label = "patched",
		  .release = "6.1.0-test-patched",
		  .zimage_sha256 = "bb",
		  .config_sha256 = "cc",
		  .manifest_json = "{}" },
	};
	struct store st;
	struct board b;
	int64_t cid;
	char cids[32];
	int i;

	if (argc != 2) { /* tests/t30-db.sh runs it with a board file; `make unit` without */
		printf("SKIP: test_store needs BOARD.json (tests/t30-db.sh gives it one)\n");
		CHECK_DONE("test_store");
	}
	CHECK(board_load(&b, argv[1]) == 0);
	CHECK(store_open(&st, NULL) == 0);
	if (!st.conn) {
		board_free(&b);
		CHECK_DONE("test_store");
	}
	/* migrations are idempotent: a second open applies none twice */
	{
		struct store st2;

		CHECK(store_open(&st2, NULL) == 0);
		CHECK(count(&st2, "SELECT count(*) - count(DISTINCT version) FROM schema_version",
			    NULL) == 0);
		store_close(&st2);
	}
	CHECK(store_campaign_new(&st, &cd, &cid) == 0);
	snprintf(cids, sizeof(cids), "%lld", (long long)cid);

	/* 3 control + 3 patched boots; patched slower, so "above" everywhere */
	for (i = 0; i < 6; i++) {
		struct boot_rec rec = { 0 };
		struct run_result res;
		struct errtext why;
		char *log;
		int var = i % 2, base = var ? 400 : 350;

		if (asprintf(&log, v1_log, base + i, base + i + 1, 0, 0) < 0)
			return 1;
		parse_log(log, strlen(log), &res);
		CHECK(run_check(&res, &why) == 0);
		uuid_v4(rec.uuid);
		rec.campaign = cid;
		rec.board = &b;
		rec.variant = var ? "patched" : "control";
		rec.seq = i + 1;
		rec.attempt = 1;
		rec.status = "ok";
		rec.k = &k[var];
		rec.uname_r = k[var].release;
		rec.proc_version = "Linux version test";
		rec.started_wall_ms = 1700000000000LL;
		rec.boot_ms = 2000;
		rec.run_ms = 8000;
		rec.log_path = "/tmp/x.log";
		rec.res = &res;
		CHECK(store_boot(&st, &rec) == 0);
		/* the same boot again (a re-ingested spool file) changes nothing */
		CHECK(store_boot(&st, &rec) == 0);
		free(log);
		run_result_free(&res);
	}
	CHECK(count(&st, "SELECT count(*) FROM boots WHERE campaign_id = $1::int", cids) == 6);
	CHECK(count(&st,
		    "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id "
		    "WHERE b.campaign_id = $1::int",
		    cids) == 24);
	CHECK(count(&st, "SELECT count(DISTINCT kernel_id) FROM boots WHERE campaign_id = $1::int",
		    cids) == 2);

	/* a boot whose samples violate the schema (batch twice) leaves nothing */
	{
		struct boot_rec rec = { 0 };
		struct run_result res;
		char *log;

		if (asprintf(&log, v1_log, 1, 2, 3, 4) < 0)
			return 1;
		parse_log(log, strlen(log), &res);
		res.v[1].batch = 1; /* duplicate primary key inside COPY */
		uuid_v4(rec.uuid);
		rec.campaign = cid;
		rec.board = &b;
		rec.variant = "control";
		rec.seq = 7;
		rec.attempt = 1;
		rec.status = "ok";
		rec.k = &k[0];
		rec.boot_ms = rec.run_ms = -1;
		rec.res = &res;
		CHECK(store_boot(&st, &rec) != 0);
		CHECK(count(&st, "SELECT count(*) FROM boots WHERE uuid = $1::uuid", rec.uuid) ==
		      0);
		free(log);
		run_result_free(&res);
	}
	CHECK(count(&st, "SELECT count(*) FROM boots WHERE campaign_id = $1::int", cids) == 6);

	/* a second ok boot of a stored slot (a resumed slot, then its spooled
	 * twin): refused, nothing stored; a failed attempt of the slot is fine */
	{
		struct boot_rec rec = { 0 };
		struct run_result res;
		char *log;

		if (asprintf(&log, v1_log, 350, 351, 0, 0) < 0)
			return 1;
		parse_log(log, strlen(log), &res);
		uuid_v4(rec.uuid);
		rec.campaign = cid;
		rec.board = &b;
		rec.variant = "control";
		rec.seq = 1;
		rec.attempt = 2;
		rec.status = "ok";
		rec.k = &k[0];
		rec.boot_ms = rec.run_ms = -1;
		rec.res = &res;
		CHECK(store_boot(&st, &rec) == -EEXIST);
		CHECK(count(&st, "SELECT count(*) FROM boots WHERE uuid = $1::uuid", rec.uuid) ==
		      0);
		rec.status = "failed";
		rec.error = "test";
		CHECK(store_boot(&st, &rec) == 0);
		CHECK(count(&st,
			    "SELECT count(*) FROM boots WHERE campaign_id = $1::int AND seq = 1 "
			    "AND status = 'ok'",
			    cids) == 1);
		free(log);
		run_result_free(&res);
	}

	/* LAVA job ids: unique per server, the same id on two servers is two jobs */
	{
		const int want[3] = { 0, 0, -EEXIST };
		char srv[3][64];

		/* servers of this run only: the database may hold earlier runs' */
		snprintf(srv[0], sizeof(srv[0]), "https://lava%s.example.org", cids);
		snprintf(srv[1], sizeof(srv[1]), "local:h:%s", cids);
		snprintf(srv[2], sizeof(srv[2]), "https://lava%s.example.org", cids);
		for (i = 0; i < 3; i++) {
			struct boot_rec rec = { 0 };

			uuid_v4(rec.uuid);
			rec.campaign = cid;
			rec.board = &b;
			rec.variant = "patched";
			rec.seq = 2;
			rec.attempt = 10 + i;
			rec.status = "failed";
			rec.error = "lava test";
			rec.boot_ms = rec.run_ms = -1;
			rec.lava_server = srv[i];
			rec.lava_job_id = 1;
			CHECK(store_boot(&st, &rec) == want[i]);
		}
		CHECK(count(&st,
			    "SELECT count(*) FROM boots WHERE lava_job_id = 1 AND campaign_id = "
			    "$1::int",
			    cids) == 2);
	}

	/* COPY text: tab, backslash, newline and CR in text fields round-trip */
	{
		struct boot_rec rec = { 0 };
		struct run_result res;
		PGresult *r;
		const char *p[1] = { rec.uuid };
		char *log;

		if (asprintf(&log, v1_log, 350, 351, 0, 0) < 0)
			return 1;
		parse_log(log, strlen(log), &res);
		for (i = 0; i < (int)res.n; i++) {
			struct sample *sm = &res.v[i];

			if (sm->kind != SAMPLE_RESULT)
				continue;
			snprintf(sm->scenario, sizeof(sm->scenario), "a\tb\\c\nd\re");
			snprintf(sm->op, sizeof(sm->op), "x\\.y\tz");
		}
		uuid_v4(rec.uuid);
		rec.campaign = cid;
		rec.board = &b;
		rec.variant = "control";
		rec.seq = 99;
		rec.attempt = 1;
		rec.status = "ok";
		rec.k = &k[0];
		rec.boot_ms = rec.run_ms = -1;
		rec.res = &res;
		CHECK(store_boot(&st, &rec) == 0);
		r = store_query(&st,
				"SELECT s.scenario, s.op, s.batch FROM samples s JOIN boots b ON "
				"b.id = s.boot_id WHERE b.uuid = $1::uuid AND s.kind = 'result' "
				"ORDER BY s.batch",
				1, p);
		CHECK(r && PQntuples(r) == 2);
		if (r && PQntuples(r) == 2) {
			CHECK(!strcmp(PQgetvalue(r, 0, 0), "a\tb\\c\nd\re"));
			CHECK(!strcmp(PQgetvalue(r, 0, 1), "x\\.y\tz"));
			CHECK(!strcmp(PQgetvalue(r, 1, 0), "a\tb\\c\nd\re"));
			CHECK(!strcmp(PQgetvalue(r, 1, 1), "x\\.y\tz"));
		}
		PQclear(r);
		free(log);
		run_result_free(&res);
	}
	CHECK(store_campaign_set_status(&st, cid, "complete") == 0);
	CHECK(report_campaign(&st, cid, "text", 0.05) == 0);
	CHECK(report_campaign(&st, cid, "json", 0.05) == 0);
	CHECK(report_campaign(&st, cid, "yaml", 0.05) != 0);
	CHECK(report_campaign(&st, 999999, "text", 0.05) != 0);
	store_close(&st);
	board_free(&b);
	CHECK_DONE("test_store");
}
