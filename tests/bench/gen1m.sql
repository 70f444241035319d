-- SPDX-License-Identifier: GPL-2.0-only
-- tests/bench/gen1m.sql: 10,000 campaigns (3 boards, every 4th nightly job
-- "gen-job"), 40,000 boots, 1,000,000 samples, one hour apart, ending now.
-- For P5 (report/query latency); run by tests/bench/run.sh.
INSERT INTO boards (name, cpu, family) VALUES ('gen-sam9x75', 'ARM926EJ-S', 'legacy'),
	('gen-arm11', 'ARM11MPCore', 'v6'), ('gen-pi400', 'Cortex-A72', 'v7')
	ON CONFLICT (name) DO NOTHING;
INSERT INTO kernels (board_id, label, release)
	SELECT b.id, v, '6.1.0-gen-' || v FROM boards b, unnest(ARRAY['control', 'patched']) v
	WHERE b.name LIKE 'gen-%';
INSERT INTO campaigns (created, trigger, order_kind, seed, boots_per_variant, batches, job, status, finished)
	SELECT now() - (10000 - g) * interval '1 hour', CASE WHEN g % 4 = 0 THEN 'nightly' ELSE 'cli' END,
	       'abab', g, 2, 5, jsonb_build_object('job', 'gen-job', 'kind', 'ab'), 'complete',
	       now() - (10000 - g) * interval '1 hour' + interval '5 min'
	FROM generate_series(1, 10000) g;
CREATE TEMP TABLE gc AS SELECT id, row_number() OVER (ORDER BY id) AS n, created FROM campaigns
	WHERE job->>'job' = 'gen-job';
INSERT INTO boots (uuid, campaign_id, board_id, kernel_id, variant, seq, attempt, status, started,
		   boot_ms, run_ms, uname_r)
	SELECT md5(gc.id::text || '-' || s)::uuid, gc.id, b.id, k.id, k.label, s, 1, 'ok',
	       gc.created + s * interval '10 s', 1500, 400, k.release
	FROM gc JOIN boards b ON b.name = (ARRAY['gen-sam9x75', 'gen-arm11', 'gen-pi400'])[1 + gc.n % 3]
	CROSS JOIN generate_series(1, 4) s
	JOIN kernels k ON k.board_id = b.id AND k.label = CASE WHEN s % 2 = 1 THEN 'control' ELSE 'patched' END;
INSERT INTO samples (boot_id, scenario, batch, kind, size, reps, dir, op, state, timing, mean_ns,
		     min_ns, max_ns, ns_per_kib, lost_bytes, fmt)
	SELECT bo.id, sc.name, bt, CASE WHEN sc.name LIKE 'preserve%' THEN 'preserve' ELSE 'result' END,
	       sc.size, 100, 'from', 'map_unmap', 'dirty', 'iter',
	       CASE WHEN sc.name LIKE 'preserve%' THEN NULL ELSE sc.base * (1 + 0.01 * random()) END,
	       CASE WHEN sc.name LIKE 'preserve%' THEN NULL ELSE (sc.base * 0.9)::bigint END,
	       CASE WHEN sc.name LIKE 'preserve%' THEN NULL ELSE (sc.base * 3)::bigint END,
	       CASE WHEN sc.size > 0 AND sc.name NOT LIKE 'preserve%' THEN sc.base * 1024 / sc.size END,
	       CASE WHEN sc.name LIKE 'preserve%' THEN (CASE WHEN bo.variant = 'control' THEN 340000 ELSE 0 END) END, 1
	FROM boots bo JOIN gc ON gc.id = bo.campaign_id
	CROSS JOIN (VALUES ('null', 0, 30.0), ('small-dirty-256B', 256, 353.0), ('large-dirty-1MiB', 1048576, 73840.0),
			   ('large-clean-1MiB', 1048576, 73108.0), ('preserve-409600B', 409600, 0.0)) sc(name, size, base)
	CROSS JOIN generate_series(1, 5) bt;
-- what store_boot writes with the samples (schema 10)
INSERT INTO boot_means SELECT s.boot_id, s.scenario,
	avg(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END),
	count(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END)
	FROM samples s JOIN boots b ON b.id = s.boot_id JOIN campaigns c ON c.id = b.campaign_id
	WHERE c.job->>'job' = 'gen-job' GROUP BY s.boot_id, s.scenario;
VACUUM ANALYZE;
