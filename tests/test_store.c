// SPDX-License-Identifier: GPL-2.0-only
/* Results database against a real PostgreSQL (the private cluster in
 * $ABLAB_DATA, started by tests/run.sh): schema, one transaction per boot,
 * idempotent re-insert by UUID, report over stored boots. */
#include "board.h"
#include "check.h"
#include "parse.h"
#include "report.h"
#include "store.h"
#include "util.h"

#include <stdlib.h>

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
		{ .label = "control", .release = "6.1.0-test-control", .zimage_sha256 = "aa",
		  .config_sha256 = "cc", .manifest_json = "{}" },
		{ .label = "patched", .release = "6.1.0-test-patched", .zimage_sha256 = "bb",
		  .config_sha256 = "cc", .manifest_json = "{}" },
	};
	struct store st;
	struct board b;
	int64_t cid;
	char cids[32];
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: test_store BOARD.json\n");
		return 2;
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
		char why[256], *log;
		int var = i % 2, base = var ? 400 : 350;

		if (asprintf(&log, v1_log, base + i, base + i + 1, 0, 0) < 0)
			return 1;
		parse_log(log, strlen(log), &res);
		CHECK(run_check(&res, why, sizeof(why)) == 0);
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
	CHECK(count(&st, "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id "
			 "WHERE b.campaign_id = $1::int", cids) == 24);
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
		res.v[1].batch = 1;	/* duplicate primary key inside COPY */
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
		CHECK(count(&st, "SELECT count(*) FROM boots WHERE uuid = $1::uuid", rec.uuid) == 0);
		free(log);
		run_result_free(&res);
	}
	CHECK(count(&st, "SELECT count(*) FROM boots WHERE campaign_id = $1::int", cids) == 6);
	CHECK(store_campaign_set_status(&st, cid, "complete") == 0);
	CHECK(report_campaign(&st, cid, "text", 0.05) == 0);
	CHECK(report_campaign(&st, cid, "json", 0.05) == 0);
	CHECK(report_campaign(&st, cid, "yaml", 0.05) != 0);
	CHECK(report_campaign(&st, 999999, "text", 0.05) != 0);
	store_close(&st);
	board_free(&b);
	CHECK_DONE("test_store");
}
