// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmabench - streaming DMA API cache-maintenance cost benchmark
 *
 * Registers a throwaway platform device with a 32-bit DMA mask and times
 * dma_map_single()/dma_unmap_single()/dma_sync_single_for_*() on kmalloc()
 * buffers.  No DMA hardware is involved: only the CPU-side cost of the
 * architecture's cache maintenance is measured.  It also checks whether
 * CPU-written data survives a DMA_FROM_DEVICE map/unmap without a device
 * write.
 *
 * All work happens at module load; results are printed as single
 * "dmabench: v1 ..." lines (see README.md).  A failed run makes the load
 * fail with the error's negative errno.
 */

#define pr_fmt(fmt) "dmabench: " fmt

#include <linux/ctype.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#define DB_MAX_SCENARIOS	16
#define DB_NAME_MAX		40
#define DB_MAX_REPS		10000000U
#define DB_MAX_BATCHES		1000U
#define DB_NULL_REPS		5000U
#define DB_CAL_REPS		16U
#define DB_ITER_FACTOR		100U
#define DB_RES_TRIES		20U
#define DB_BASE_TRIES		3U
#define DB_RES_SPIN_MAX		50000000U
#define DB_PRESERVE_SIZE	409600U
#define DB_PRESERVE_NAME	"preserve-409600B"

enum db_op {
	DB_OP_MAP_UNMAP,
	DB_OP_MAP,
	DB_OP_UNMAP,
	DB_OP_SYNC,
	DB_OP_NULL,
};

enum db_timing {
	DB_TIMING_AUTO,
	DB_TIMING_ITER,
	DB_TIMING_BATCH,
};

static const char * const db_op_names[] = {
	[DB_OP_MAP_UNMAP]	= "map_unmap",
	[DB_OP_MAP]		= "map",
	[DB_OP_UNMAP]		= "unmap",
	[DB_OP_SYNC]		= "sync",
	[DB_OP_NULL]		= "null",
};

static const char * const db_timing_names[] = {
	[DB_TIMING_AUTO]	= "auto",
	[DB_TIMING_ITER]	= "iter",
	[DB_TIMING_BATCH]	= "batch",
};

static const char * const db_state_names[] = { "clean", "dirty" };

static const char * const db_dir_names[] = { "from", "to", "bidi" };

static const enum dma_data_direction db_dir_values[] = {
	DMA_FROM_DEVICE, DMA_TO_DEVICE, DMA_BIDIRECTIONAL,
};

static const char * const db_default_specs[] = {
	"small-dirty-256B:256:dirty:from:map_unmap:5000",
	"large-dirty-1MiB:1M:dirty:from:map_unmap:300",
	"large-clean-1MiB:1M:clean:from:map_unmap:300",
};

struct db_scenario {
	char name[DB_NAME_MAX + 1];
	size_t size;
	unsigned int reps;
	unsigned int dir_idx;
	enum dma_data_direction dir;
	enum db_op op;
	bool dirty;
	bool batch_timing;
	bool pinned;
};

struct db_stats {
	u64 sum;
	u64 min;
	u64 max;
	u64 raw;
	u64 base;
};

/* Where a failed run stopped; printed on the "done" line. */
struct db_error {
	const char *scenario;
	const char *key;
	const char *value;
};

static char *db_scenarios_param;
module_param_named(scenarios, db_scenarios_param, charp, 0444);
MODULE_PARM_DESC(scenarios,
		 "Comma-separated name:size:dirty|clean:from|to|bidi:map_unmap|map|unmap|sync:reps specs (default: the three seed scenarios)");

static unsigned int db_reps;
module_param_named(reps, db_reps, uint, 0444);
MODULE_PARM_DESC(reps, "Override every scenario's reps, null baseline included (0 = per-scenario value)");

static unsigned int db_batches = 5;
module_param_named(batches, db_batches, uint, 0444);
MODULE_PARM_DESC(batches, "Batches per scenario, 1..1000 (default 5)");

static char *db_timing_param;
module_param_named(timing, db_timing_param, charp, 0444);
MODULE_PARM_DESC(timing, "auto|iter|batch (default auto)");

static char *db_pin_param;
module_param_named(pin_timing, db_pin_param, charp, 0444);
MODULE_PARM_DESC(pin_timing,
		 "Comma-separated name:iter|batch pairs: these scenarios' timing mode, as an earlier load chose it (default: none)");

static bool db_null_baseline = true;
module_param_named(null_baseline, db_null_baseline, bool, 0444);
MODULE_PARM_DESC(null_baseline, "Add the 'null' scenario timing an empty function call (default Y)");

static bool db_preserve = true;
module_param_named(preserve, db_preserve, bool, 0444);
MODULE_PARM_DESC(preserve, "Run the DMA_FROM_DEVICE preservation check every batch (default Y)");

static struct platform_device *db_pdev;
static struct db_scenario db_scen[DB_MAX_SCENARIOS + 1];
static unsigned int db_nscen;
static u64 db_clock_res_ns;
static unsigned int db_results;
static char db_spec_label[16];

static const struct {
	int err;
	const char *name;
} db_errnames[] = {
	{ -EINVAL, "EINVAL" },
	{ -ENOMEM, "ENOMEM" },
	{ -EIO, "EIO" },
	{ -ENODEV, "ENODEV" },
	{ -EBUSY, "EBUSY" },
	{ -EEXIST, "EEXIST" },
	{ -EFAULT, "EFAULT" },
	{ -ENOSPC, "ENOSPC" },
	{ -ERANGE, "ERANGE" },
	{ -EINTR, "EINTR" },
	{ -EAGAIN, "EAGAIN" },
	{ -ENOENT, "ENOENT" },
	{ -EPERM, "EPERM" },
	{ -ENXIO, "ENXIO" },
	{ -EOPNOTSUPP, "EOPNOTSUPP" },
};

static const char *db_errname(int err)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(db_errnames); i++)
		if (db_errnames[i].err == err)
			return db_errnames[i].name;
	return "EUNKNOWN";
}

static void db_set_error(struct db_error *e, const char *scenario,
			 const char *key, const char *value)
{
	e->scenario = scenario;
	e->key = key;
	e->value = value;
}

/* Deliberately empty, but not removable by the compiler. */
static noinline void db_null_op(void)
{
	barrier();
}

/*
 * Smallest observable step of ktime_get_ns(): spin until the value changes,
 * DB_RES_TRIES times.  Each spin is bounded by an iteration count and by
 * jiffies.  Returns 0 if the clock never moved.
 */
static u64 db_measure_clock_res(void)
{
	u64 best = U64_MAX;
	unsigned int i, n;

	for (i = 0; i < DB_RES_TRIES; i++) {
		unsigned long deadline = jiffies + HZ / 10 + 2;
		u64 t0 = ktime_get_ns();
		u64 t1 = t0;

		for (n = 0; n < DB_RES_SPIN_MAX && t1 == t0; n++) {
			t1 = ktime_get_ns();
			if (time_after(jiffies, deadline))
				break;
		}
		if (t1 > t0)
			best = min(best, t1 - t0);
	}
	return best == U64_MAX ? 0 : best;
}

static bool db_valid_name(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > DB_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

static bool db_name_taken(const char *s, unsigned int count)
{
	unsigned int i;

	if (!strcmp(s, "null") || !strcmp(s, "none") ||
	    !strcmp(s, DB_PRESERVE_NAME))
		return true;
	for (i = 0; i < count; i++)
		if (!strcmp(db_scen[i].name, s))
			return true;
	return false;
}

/* Decimal byte count with an optional K (KiB) or M (MiB) suffix. */
static int db_parse_size(char *s, size_t *size)
{
	size_t len = strlen(s);
	unsigned long mult = 1, val;

	if (len && (s[len - 1] == 'K' || s[len - 1] == 'k')) {
		mult = SZ_1K;
		s[--len] = '\0';
	} else if (len && (s[len - 1] == 'M' || s[len - 1] == 'm')) {
		mult = SZ_1M;
		s[--len] = '\0';
	}
	if (!len || kstrtoul(s, 10, &val))
		return -EINVAL;
	if (check_mul_overflow(val, mult, &val))
		return -EINVAL;
	if (!val || val > KMALLOC_MAX_SIZE)
		return -EINVAL;
	*size = val;
	return 0;
}

/* Parse one name:size:state:dir:op:reps spec into db_scen[idx]. */
static int db_parse_spec(char *spec, unsigned int idx, struct db_error *e)
{
	struct db_scenario *sc = &db_scen[idx];
	char *f[6];
	unsigned int nf = 0;
	const char *label;
	int i;

	snprintf(db_spec_label, sizeof(db_spec_label), "spec%u", idx + 1);
	label = db_spec_label;

	while (spec && nf < ARRAY_SIZE(f))
		f[nf++] = strsep(&spec, ":");
	if (spec) {
		db_set_error(e, label, "field", "spec");
		return -EINVAL;
	}
	/* A missing field is reported as that field being invalid. */
	while (nf < ARRAY_SIZE(f))
		f[nf++] = "";

	if (!db_valid_name(f[0]) || db_name_taken(f[0], idx)) {
		db_set_error(e, label, "field", "name");
		return -EINVAL;
	}
	strscpy(sc->name, f[0], sizeof(sc->name));
	label = sc->name;

	if (db_parse_size(f[1], &sc->size)) {
		db_set_error(e, label, "field", "size");
		return -EINVAL;
	}

	i = match_string(db_state_names, ARRAY_SIZE(db_state_names), f[2]);
	if (i < 0) {
		db_set_error(e, label, "field", "state");
		return -EINVAL;
	}
	sc->dirty = i == 1;

	i = match_string(db_dir_names, ARRAY_SIZE(db_dir_names), f[3]);
	if (i < 0) {
		db_set_error(e, label, "field", "dir");
		return -EINVAL;
	}
	sc->dir_idx = i;
	sc->dir = db_dir_values[i];

	i = match_string(db_op_names, ARRAY_SIZE(db_op_names), f[4]);
	if (i < 0 || i == DB_OP_NULL) {
		db_set_error(e, label, "field", "op");
		return -EINVAL;
	}
	sc->op = i;

	if (kstrtouint(f[5], 10, &sc->reps) || !sc->reps ||
	    sc->reps > DB_MAX_REPS) {
		db_set_error(e, label, "field", "reps");
		return -EINVAL;
	}
	return 0;
}

/* Append the comma-separated specs in @src to db_scen[]. */
static int db_parse_list(const char *src, struct db_error *e)
{
	char *copy, *p;
	int ret = 0;

	copy = kstrdup(src, GFP_KERNEL);
	if (!copy) {
		db_set_error(e, "none", "param", "scenarios");
		return -ENOMEM;
	}

	p = copy;
	while (p) {
		char *spec = strsep(&p, ",");

		if (db_nscen == DB_MAX_SCENARIOS) {
			db_set_error(e, "none", "param", "scenarios");
			ret = -EINVAL;
			break;
		}
		ret = db_parse_spec(spec, db_nscen, e);
		if (ret)
			break;
		db_nscen++;
	}
	kfree(copy);
	return ret;
}

static int db_parse_scenarios(struct db_error *e)
{
	unsigned int i;
	int ret;

	db_nscen = 0;
	if (db_scenarios_param)
		return db_parse_list(db_scenarios_param, e);

	for (i = 0; i < ARRAY_SIZE(db_default_specs); i++) {
		ret = db_parse_list(db_default_specs[i], e);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Fix the timing mode of the scenarios named in pin_timing, so that every
 * load of a campaign times a scenario the same way the first load chose.
 */
static int db_parse_pins(struct db_error *e)
{
	char *copy, *p;
	int ret = 0;

	if (!db_pin_param || !*db_pin_param)
		return 0;
	copy = kstrdup(db_pin_param, GFP_KERNEL);
	if (!copy) {
		db_set_error(e, "none", "param", "pin_timing");
		return -ENOMEM;
	}
	p = copy;
	while (p && !ret) {
		char *name = strsep(&p, ","), *mode = name;
		unsigned int i;
		int t;

		strsep(&mode, ":");
		t = mode ? match_string(db_timing_names,
					ARRAY_SIZE(db_timing_names), mode) :
			   -EINVAL;
		ret = -EINVAL;
		if (t != DB_TIMING_ITER && t != DB_TIMING_BATCH)
			break;
		for (i = 0; i < db_nscen; i++) {
			if (strcmp(db_scen[i].name, name))
				continue;
			db_scen[i].batch_timing = t == DB_TIMING_BATCH;
			db_scen[i].pinned = true;
			ret = 0;
		}
	}
	kfree(copy);
	if (ret)
		db_set_error(e, "none", "param", "pin_timing");
	return ret;
}

static int db_parse_params(enum db_timing *timing, struct db_error *e)
{
	struct db_scenario *sc;
	unsigned int i;
	int ret;

	*timing = DB_TIMING_AUTO;
	if (db_timing_param) {
		ret = match_string(db_timing_names, ARRAY_SIZE(db_timing_names),
				   db_timing_param);
		if (ret < 0) {
			db_set_error(e, "none", "param", "timing");
			return -EINVAL;
		}
		*timing = ret;
	}
	if (!db_batches || db_batches > DB_MAX_BATCHES) {
		db_set_error(e, "none", "param", "batches");
		return -EINVAL;
	}
	if (db_reps > DB_MAX_REPS) {
		db_set_error(e, "none", "param", "reps");
		return -EINVAL;
	}

	ret = db_parse_scenarios(e);
	if (ret)
		return ret;

	if (db_null_baseline) {
		/* The baseline goes first so that it precedes every batch. */
		memmove(&db_scen[1], &db_scen[0], db_nscen * sizeof(db_scen[0]));
		sc = &db_scen[0];
		memset(sc, 0, sizeof(*sc));
		strscpy(sc->name, "null", sizeof(sc->name));
		sc->reps = DB_NULL_REPS;
		sc->dir_idx = 0;
		sc->dir = db_dir_values[0];
		sc->op = DB_OP_NULL;
		db_nscen++;
	}

	for (i = 0; i < db_nscen; i++) {
		if (db_reps)
			db_scen[i].reps = db_reps;
		db_scen[i].batch_timing = *timing == DB_TIMING_BATCH;
	}
	return db_parse_pins(e);
}

static inline void db_dirty(const struct db_scenario *sc, void *buf,
			    unsigned int i)
{
	memset(buf, (u8)(i | 1), sc->size);
	/* Keep every memset: the compiler must not merge dead stores. */
	barrier();
}

/*
 * Buffer set-up before a batch.  A clean buffer gets one map/unmap so that
 * none of its lines are left dirty in the cache.  For op=sync the buffer is
 * mapped once for the whole batch and handed to the CPU, so that each
 * iteration's write happens while the CPU owns it.
 */
static int db_prepare(struct device *dev, const struct db_scenario *sc,
		      void *buf, dma_addr_t *handle)
{
	dma_addr_t dma;

	*handle = DMA_MAPPING_ERROR;
	if (sc->op == DB_OP_NULL)
		return 0;

	if (!sc->dirty) {
		dma = dma_map_single(dev, buf, sc->size, sc->dir);
		if (dma_mapping_error(dev, dma))
			return -EIO;
		dma_unmap_single(dev, dma, sc->size, sc->dir);
	}

	if (sc->op == DB_OP_SYNC) {
		dma = dma_map_single(dev, buf, sc->size, sc->dir);
		if (dma_mapping_error(dev, dma))
			return -EIO;
		dma_sync_single_for_cpu(dev, dma, sc->size, sc->dir);
		*handle = dma;
	}
	return 0;
}

static void db_finish(struct device *dev, const struct db_scenario *sc,
		      dma_addr_t handle)
{
	if (sc->op == DB_OP_SYNC && !dma_mapping_error(dev, handle))
		dma_unmap_single(dev, handle, sc->size, sc->dir);
}

/*
 * One iteration with the clock read around the timed operation only.  The
 * dirtying write and, for op=map/unmap, the other half of the pair happen
 * outside the timed region.
 */
static int db_step(struct device *dev, const struct db_scenario *sc,
		   void *buf, dma_addr_t handle, bool irqoff, u64 *delta)
{
	dma_addr_t dma = DMA_MAPPING_ERROR;
	unsigned long flags = 0;
	u64 t0, t1;

	if (sc->op == DB_OP_UNMAP) {
		dma = dma_map_single(dev, buf, sc->size, sc->dir);
		if (dma_mapping_error(dev, dma))
			return -EIO;
	}

	if (irqoff)
		local_irq_save(flags);
	t0 = ktime_get_ns();
	switch (sc->op) {
	case DB_OP_MAP_UNMAP:
		dma = dma_map_single(dev, buf, sc->size, sc->dir);
		if (!dma_mapping_error(dev, dma))
			dma_unmap_single(dev, dma, sc->size, sc->dir);
		break;
	case DB_OP_MAP:
		dma = dma_map_single(dev, buf, sc->size, sc->dir);
		break;
	case DB_OP_UNMAP:
		dma_unmap_single(dev, dma, sc->size, sc->dir);
		break;
	case DB_OP_SYNC:
		dma_sync_single_for_device(dev, handle, sc->size, sc->dir);
		dma_sync_single_for_cpu(dev, handle, sc->size, sc->dir);
		break;
	case DB_OP_NULL:
		db_null_op();
		break;
	}
	t1 = ktime_get_ns();
	if (irqoff)
		local_irq_restore(flags);

	if (sc->op == DB_OP_MAP_UNMAP || sc->op == DB_OP_MAP) {
		if (dma_mapping_error(dev, dma))
			return -EIO;
		if (sc->op == DB_OP_MAP)
			dma_unmap_single(dev, dma, sc->size, sc->dir);
	}
	*delta = t1 - t0;
	return 0;
}

static int db_time_iter(struct device *dev, const struct db_scenario *sc,
			void *buf, dma_addr_t handle, unsigned int reps,
			bool irqoff, struct db_stats *st)
{
	unsigned int i;
	u64 d;
	int ret;

	st->sum = 0;
	st->min = U64_MAX;
	st->max = 0;
	for (i = 0; i < reps; i++) {
		if (sc->dirty)
			db_dirty(sc, buf, i);
		ret = db_step(dev, sc, buf, handle, irqoff, &d);
		if (ret)
			return ret;
		st->sum += d;
		st->min = min(st->min, d);
		st->max = max(st->max, d);
	}
	return 0;
}

/*
 * Whole-batch timing with interrupts enabled (a tick-driven clock must be
 * able to advance).  Dirty scenarios subtract a memset-only batch.  A whole
 * batch cannot isolate one half of a map/unmap pair, so op=map and op=unmap
 * instead sum per-operation clock deltas (each quantisation error averages
 * out over many reps) and report base_ns=0.
 */
static int db_time_batch(struct device *dev, const struct db_scenario *sc,
			 void *buf, dma_addr_t handle, struct db_stats *st)
{
	unsigned int i;
	dma_addr_t dma;
	u64 t0, t1;
	int ret = 0;

	st->base = 0;
	if (sc->op == DB_OP_MAP || sc->op == DB_OP_UNMAP) {
		ret = db_time_iter(dev, sc, buf, handle, sc->reps, false, st);
		st->raw = st->sum;
		return ret;
	}

	t0 = ktime_get_ns();
	for (i = 0; i < sc->reps; i++) {
		if (sc->dirty)
			db_dirty(sc, buf, i);
		if (sc->op == DB_OP_MAP_UNMAP) {
			dma = dma_map_single(dev, buf, sc->size, sc->dir);
			if (dma_mapping_error(dev, dma)) {
				ret = -EIO;
				break;
			}
			dma_unmap_single(dev, dma, sc->size, sc->dir);
		} else if (sc->op == DB_OP_SYNC) {
			dma_sync_single_for_device(dev, handle, sc->size, sc->dir);
			dma_sync_single_for_cpu(dev, handle, sc->size, sc->dir);
		} else {
			db_null_op();
		}
	}
	t1 = ktime_get_ns();
	if (ret)
		return ret;
	st->raw = t1 - t0;

	if (sc->dirty) {
		unsigned int k;

		/*
		 * The baseline is the fastest of DB_BASE_TRIES timings of the
		 * memset loop: an interrupt in one of them cannot inflate it
		 * (and so cannot make raw - base negative).
		 */
		st->base = U64_MAX;
		for (k = 0; k < DB_BASE_TRIES; k++) {
			cond_resched();
			t0 = ktime_get_ns();
			for (i = 0; i < sc->reps; i++)
				db_dirty(sc, buf, i);
			t1 = ktime_get_ns();
			st->base = min(st->base, t1 - t0);
		}
	}
	return 0;
}

/* Allocate, prepare, time @reps iterations and tear down one batch. */
static int db_run(struct device *dev, const struct db_scenario *sc,
		  unsigned int reps, bool batch_timing, struct db_stats *st)
{
	dma_addr_t handle;
	void *buf = NULL;
	int ret;

	if (sc->op != DB_OP_NULL) {
		buf = kmalloc(sc->size, GFP_KERNEL | __GFP_NOWARN);
		if (!buf)
			return -ENOMEM;
	}

	ret = db_prepare(dev, sc, buf, &handle);
	if (!ret) {
		if (batch_timing)
			ret = db_time_batch(dev, sc, buf, handle, st);
		else
			ret = db_time_iter(dev, sc, buf, handle, reps, true, st);
		db_finish(dev, sc, handle);
	}
	kfree(buf);
	return ret;
}

/*
 * Time a few iterations individually; this also warms up caches (and, under
 * emulation, code translation) in every timing mode.  With timing=auto, keep
 * per-iteration timing only if the clock step is at most 1/DB_ITER_FACTOR
 * of their mean cost.
 */
static int db_calibrate(struct device *dev, struct db_scenario *sc, bool decide)
{
	unsigned int reps = min(sc->reps, DB_CAL_REPS);
	struct db_stats st;
	u64 mean;
	int ret;

	ret = db_run(dev, sc, reps, false, &st);
	if (ret)
		return ret;
	mean = div_u64(st.sum, reps);
	if (decide)
		sc->batch_timing = db_clock_res_ns * DB_ITER_FACTOR > mean;
	pr_debug("calibrate scenario=%s mean_ns=%llu batch=%d\n",
		 sc->name, mean, sc->batch_timing);
	return 0;
}

static void db_print_result(const struct db_scenario *sc, unsigned int batch,
			    const struct db_stats *st)
{
	const char *state = sc->dirty ? "dirty" : "clean";
	const char *dir = db_dir_names[sc->dir_idx];
	const char *op = db_op_names[sc->op];

	if (sc->batch_timing) {
		s64 mean = div_s64((s64)(st->raw - st->base), sc->reps);
		s64 per_kib = sc->size ? div64_s64(mean * 1024, sc->size) : 0;

		pr_info("v1 result scenario=%s batch=%u size=%zu reps=%u dir=%s op=%s state=%s timing=batch mean_ns=%lld raw_ns=%llu base_ns=%llu ns_per_KiB=%lld\n",
			sc->name, batch, sc->size, sc->reps, dir, op, state,
			mean, st->raw, st->base, per_kib);
	} else {
		u64 mean = div_u64(st->sum, sc->reps);
		u64 per_kib = sc->size ? div64_u64(mean * 1024, sc->size) : 0;

		pr_info("v1 result scenario=%s batch=%u size=%zu reps=%u dir=%s op=%s state=%s timing=iter mean_ns=%llu min_ns=%llu max_ns=%llu ns_per_KiB=%llu\n",
			sc->name, batch, sc->size, sc->reps, dir, op, state,
			mean, st->min, st->max, per_kib);
	}
	db_results++;
}

/*
 * Write a pattern, map DMA_FROM_DEVICE, unmap with no device write in
 * between and count the bytes that no longer hold the pattern.
 */
static int db_check_preserve(struct device *dev, unsigned int batch)
{
	unsigned int i, lost = 0;
	dma_addr_t dma;
	u8 *buf;

	buf = kmalloc(DB_PRESERVE_SIZE, GFP_KERNEL | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < DB_PRESERVE_SIZE; i++)
		buf[i] = (u8)(i * 7 + 0x5a + batch);

	dma = dma_map_single(dev, buf, DB_PRESERVE_SIZE, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, dma)) {
		kfree(buf);
		return -EIO;
	}
	dma_unmap_single(dev, dma, DB_PRESERVE_SIZE, DMA_FROM_DEVICE);

	for (i = 0; i < DB_PRESERVE_SIZE; i++)
		if (buf[i] != (u8)(i * 7 + 0x5a + batch))
			lost++;
	kfree(buf);

	pr_info("v1 preserve scenario=%s batch=%u size=%u lost=%u\n",
		DB_PRESERVE_NAME, batch, DB_PRESERVE_SIZE, lost);
	db_results++;
	return 0;
}

/* Batches are the outer loop so that slow drift hits every scenario alike. */
static int db_run_all(struct device *dev, enum db_timing timing,
		      struct db_error *e)
{
	struct db_stats st;
	unsigned int b, i;
	int ret;

	for (i = 0; i < db_nscen; i++) {
		ret = db_calibrate(dev, &db_scen[i],
				   timing == DB_TIMING_AUTO && !db_scen[i].pinned);
		if (ret) {
			db_set_error(e, db_scen[i].name, NULL, NULL);
			return ret;
		}
		cond_resched();
	}

	for (b = 1; b <= db_batches; b++) {
		for (i = 0; i < db_nscen; i++) {
			struct db_scenario *sc = &db_scen[i];

			ret = db_run(dev, sc, sc->reps, sc->batch_timing, &st);
			if (ret) {
				db_set_error(e, sc->name, NULL, NULL);
				return ret;
			}
			db_print_result(sc, b, &st);
			cond_resched();
		}
		if (db_preserve) {
			ret = db_check_preserve(dev, b);
			if (ret) {
				db_set_error(e, DB_PRESERVE_NAME, NULL, NULL);
				return ret;
			}
		}
		cond_resched();
	}
	return 0;
}

static void db_print_done(int status, const struct db_error *e)
{
	if (!status) {
		pr_info("v1 done status=0 results=%u\n", db_results);
		return;
	}
	pr_info("v1 done status=%d results=%u error=%s scenario=%s%s%s%s%s\n",
		status, db_results, db_errname(status),
		e->scenario ? e->scenario : "none",
		e->key ? " " : "", e->key ? e->key : "",
		e->key ? "=" : "", e->value ? e->value : "");
}

static int __init dmabench_init(void)
{
	struct db_error e = { };
	enum db_timing timing;
	int ret;

	db_results = 0;
	db_clock_res_ns = db_measure_clock_res();
	if (!db_clock_res_ns) {
		db_set_error(&e, "none", "field", "clock");
		ret = -EIO;
		goto out_done;
	}

	ret = db_parse_params(&timing, &e);
	if (ret)
		goto out_done;

	db_pdev = platform_device_register_simple("dmabench", PLATFORM_DEVID_NONE,
						  NULL, 0);
	if (IS_ERR(db_pdev)) {
		ret = PTR_ERR(db_pdev);
		db_pdev = NULL;
		db_set_error(&e, "none", "field", "device");
		goto out_done;
	}
	ret = dma_coerce_mask_and_coherent(&db_pdev->dev, DMA_BIT_MASK(32));
	if (ret) {
		db_set_error(&e, "none", "field", "dma_mask");
		goto out_unregister;
	}

	pr_info("v1 start clock_res_ns=%llu timing=%s batches=%u scenarios=%u\n",
		db_clock_res_ns, db_timing_names[timing], db_batches, db_nscen);

	ret = db_run_all(&db_pdev->dev, timing, &e);
	if (ret)
		goto out_unregister;

	db_print_done(0, &e);
	return 0;

out_unregister:
	platform_device_unregister(db_pdev);
	db_pdev = NULL;
out_done:
	db_print_done(ret, &e);
	return ret;
}

static void __exit dmabench_exit(void)
{
	platform_device_unregister(db_pdev);
}

module_init(dmabench_init);
module_exit(dmabench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Streaming DMA API map/unmap/sync cost benchmark");
