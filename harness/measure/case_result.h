/* One case of a run matrix (topology x selector x rw x iodepth): what
 * each path and the map did, what fio saw, and which paths are slow.
 * Saved as one JSON file per case so `slowpath report` can render a
 * run again without the lab. */
#ifndef SP_CASE_RESULT_H
#define SP_CASE_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "harness/measure/case_env.h"
#include "harness/measure/case_faults.h"
#include "harness/measure/diskstats.h"
#include "harness/measure/fio_json.h"

#define SP_CASE_MAX_PATHS 16
/* a path's delay as a case records it: each of its parts is at most a
 * minute, times k */
#define SP_CASE_MAX_DELAY_NS (3600LL * 1000000000LL)
#define SP_CASE_FORMAT 1	/* "slowpath_case" version in the JSON */

/* A path's latency as its delay store saw it (harness/run/run_lat.h):
 * quantiles as their histogram bucket's middle. */
struct sp_case_lat {
	int has;
	uint64_t count;
	int64_t p50_ns, p99_ns, p999_ns;
};

struct sp_case_result {
	char topology[64];
	char selector[48];	/* as dm-multipath names it, e.g. service-time */
	/* whose selector: "dm" (dm-multipath's) or "nvme" (native NVMe
	 * multipath's iopolicy); round-robin is a name of both */
	char family[8];
	char rw[16];
	uint64_t bs;
	int iodepth, numjobs;
	size_t n_paths;
	struct sp_diskstat path[SP_CASE_MAX_PATHS];	/* deltas */
	int slow[SP_CASE_MAX_PATHS];
	/* each path's topology label ("p4", "" in a case of before
	 * 2026-12-03) and its delay as run (ns): what a plot names it by */
	char label[SP_CASE_MAX_PATHS][32];
	int64_t delay_ns[SP_CASE_MAX_PATHS];
	struct sp_case_lat lat[SP_CASE_MAX_PATHS];
	int has_map;
	struct sp_diskstat map;				/* delta of dm-N */
	size_t fio_jobs;
	enum sp_fio_pct fio_pct;
	struct sp_fio_job fio;				/* total over jobs */
	struct sp_case_env env;		/* k, CPU, mode, HST, residuals */
	struct sp_case_faults faults;	/* --fault/--verify: events, errors */
};

/* A kernel or short selector name -> its short name (service-time ->
 * st, see dm/selector.c); unknown names as given. */
const char *sp_selector_short(const char *selector);

/* c's family from its map when the case file is older than the
 * "selector_family" key: native NVMe multipath's disk is nvmeXnY */
void sp_case_family_from_map(struct sp_case_result *c);

/* Same topology, rw, bs, iodepth, numjobs and kernel: comparable
 * cases. */
int sp_case_same_point(const struct sp_case_result *a,
		       const struct sp_case_result *b);

/* 4096 -> "4k", 1048576 -> "1m", 512 -> "512" */
void sp_case_bs_text(uint64_t bytes, char *buf, size_t len);

/* "<topology>-<rw>-<bs>-qd<N>[-j<J>]-<selector short>" */
int sp_case_stem(const struct sp_case_result *c, char *buf, size_t len);

/* Each path's I/Os (reads + writes) into ios (may be NULL); the sum. */
uint64_t sp_case_path_ios(const struct sp_case_result *c, uint64_t *ios);

/* The standard error of each of c's shares (se may be NULL) and the
 * largest: by batch means when the case's timeline was read
 * (c->env.se_batches), else binomial from its I/O counts. */
double sp_case_share_se(const struct sp_case_result *c, double *se);

struct sp_timeline;
/* cases_dir/<stem>.timeline.tsv of c, parsed into tl: -ENOENT when c
 * recorded none, else what reading or parsing says (0 on success). */
int sp_case_timeline_read(const char *cases_dir, const struct sp_case_result *c,
			  struct sp_timeline *tl);

/* The glue `run` needs: c has topology..numjobs, n_paths, path[].name,
 * slow[] and (if has_map) map.name filled in; this takes both
 * /proc/diskstats texts and fio's stdout and fills in the rest. */
int sp_case_fill(struct sp_case_result *c, const char *before_text,
		 const char *after_text, const char *fio_text);

struct json_object;
/* A new json-c object (caller puts it); sp_case_to_json is its text. */
struct json_object *sp_case_json_object(const struct sp_case_result *c);
int sp_case_to_json(const struct sp_case_result *c, char **text);
int sp_case_from_json(const char *text, const char *origin,
		      struct sp_case_result *c);

/* DIR/cases/<stem>.json */
int sp_case_save(const char *dir, const struct sp_case_result *c);
/* DIR/raw/<stem>.<suffix>, e.g. "fio.json", "diskstats.before" */
int sp_case_save_raw(const char *dir, const struct sp_case_result *c,
		     const char *suffix, const char *text);
/* Every DIR/cases/<name>.json, sorted by file name. */
int sp_case_load_dir(const char *dir, struct sp_case_result **cases,
		     size_t *n);

#endif
