/* fio's --output-format=json, reduced to what a selector comparison
 * needs: per direction I/O counts, IOPS, bandwidth and completion
 * latency, per job and summed over jobs, plus fio's disk_util. */
#ifndef SP_FIO_JSON_H
#define SP_FIO_JSON_H

#include <stddef.h>
#include <stdint.h>

enum sp_fio_dirn { SP_FIO_READ, SP_FIO_WRITE, SP_FIO_NDIR };

struct sp_fio_dir {
	uint64_t ios;		/* total_ios */
	uint64_t bytes;		/* io_bytes */
	double iops;
	double bw_kib;		/* KiB/s, fio's "bw" */
	uint64_t runtime_ms;
	double clat_mean_us;
	/* completion-latency percentiles; <0 when fio reported none */
	double clat_p50_us, clat_p99_us, clat_p999_us;
	double lat_mean_us;	/* submission + completion */
};

#define SP_FIO_NAMELEN 64

struct sp_fio_job {
	char name[SP_FIO_NAMELEN];
	int error;		/* fio's per-job errno, 0 when fine */
	/* With continue_on_error fio goes on after an error and counts
	 * them: I/O errors and verify failures alike (fio's JSON does not
	 * tell them apart; the verify failures are counted from its stderr,
	 * sp_fio_verify_errors). has_total_err 0: fio stopped at the first. */
	int has_total_err;
	uint64_t total_err;
	int first_error;	/* errno of the first one */
	struct sp_fio_dir dir[SP_FIO_NDIR];
};

/* How the total's percentiles were obtained. */
enum sp_fio_pct {
	SP_FIO_PCT_EXACT,	/* one job, or group_reporting */
	SP_FIO_PCT_MAX,		/* several jobs: the worst job's value */
};

struct sp_fio_disk {
	char name[32];
	uint64_t read_ios, write_ios, read_merges, write_merges;
	uint64_t read_ticks, write_ticks, in_queue;
	double util;
	/* dm devices: fio's aggr_* are means over the slaves, not sums */
	int has_aggr;
	uint64_t aggr_read_ios, aggr_write_ios;
	uint64_t aggr_read_ticks, aggr_write_ticks, aggr_in_queue;
	double aggr_util;
};

struct sp_fio_result {
	char version[32];
	size_t n_jobs;
	struct sp_fio_job *jobs;
	/* IOPS, bandwidth and counts summed; means weighted by I/O count;
	 * runtime the longest; percentiles per pct_kind. */
	struct sp_fio_job total;
	enum sp_fio_pct pct_kind;
	int group_reporting;
	size_t n_disks;
	struct sp_fio_disk *disks;
};

/* Parses fio's stdout. Lines before the JSON object (warnings fio
 * prints first) are skipped. A job error is not a parse error: it is
 * reported in jobs[i].error and total.error. -EINVAL with one message
 * naming origin for text that is not fio JSON. */
int sp_fio_parse(const char *text, const char *origin,
		 struct sp_fio_result *out);
void sp_fio_result_free(struct sp_fio_result *r);

/* Sums jobs into total (also used after deserialising jobs). */
void sp_fio_total(const struct sp_fio_job *jobs, size_t n,
		  struct sp_fio_job *total, enum sp_fio_pct *kind);

const struct sp_fio_disk *sp_fio_disk_find(const struct sp_fio_result *r,
					   const char *name);

/* fio's own per-disk counts (disk_util) against ours for the same device: -EDOM
 * when reads or writes differ by more than tolerance (a fraction of
 * the larger value, plus 2 I/Os of slack for fio's sampling edges),
 * -ENOENT when fio did not report the device. Both are warnings (the
 * numbers are still usable), logged as such. */
int sp_fio_crosscheck(const struct sp_fio_result *r, const char *name,
		      uint64_t our_reads, uint64_t our_writes,
		      double tolerance);

/* fio's total completed I/Os against the map's delta: every I/O fio
 * did went through the map once, so this one can be tight. */
int sp_fio_crosscheck_total(const struct sp_fio_result *r, const char *name,
			    uint64_t our_reads, uint64_t our_writes,
			    double tolerance);

/* Verify failures fio reported on stderr ("verify failed at file",
 * "verify: bad ..."), one per block. */
uint64_t sp_fio_verify_errors(const char *stderr_text);

/* fio samples disk_util on a 250 ms timer, so its window misses up to
 * that much at each end: the tolerance a run of runtime_ms needs. */
double sp_fio_disk_util_tolerance(uint64_t runtime_ms);

#endif
