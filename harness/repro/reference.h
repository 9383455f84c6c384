/* The published reference experiment, "HST vs. ST benchmarking" (2020),
 * as data: 96 per-path diskstats tables (3 topologies x 4 rw modes x
 * 4 iodepths x 2 selectors) loaded from harness/repro/data/hst-vs-st-2020.tsv,
 * plus the fit that turns its numbers into a latency unit. The three
 * setups' paths and delays come from their topology files
 * (ref_topology.c). Pure: the loaders only read the files they are
 * given; no exec, no devices. */
#ifndef SP_REFERENCE_H
#define SP_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "dm/selector.h"

/* Relative to the repo root; `slowpath reference` also looks next to
 * the binary (build/../harness/repro/data). */
#define SP_REF_DEFAULT_DATA "harness/repro/data/hst-vs-st-2020.tsv"

#define SP_REF_MAX_PATHS 16
/* Every published run moved 500M of 4k I/O in its direction. */
#define SP_REF_RUN_IOS 128000

enum sp_ref_rw { SP_REF_READ, SP_REF_WRITE, SP_REF_RANDREAD, SP_REF_RANDWRITE,
		 SP_REF_N_RW };
enum sp_ref_selector { SP_REF_ST, SP_REF_HST, SP_REF_N_SELECTORS };

/* The eight /proc/diskstats columns as the seed printed them. */
enum sp_ref_col {
	SP_REF_READS, SP_REF_RMERG, SP_REF_SECR, SP_REF_TRED,
	SP_REF_WRTS, SP_REF_WMERG, SP_REF_SECW, SP_REF_TWRIT,
	SP_REF_N_COLS,
};

struct sp_ref_path {
	char dev[8];
	uint64_t v[SP_REF_N_COLS];
	/* Bit (1u << col) set: the value is as published but not this
	 * run's (a counter carried over from earlier runs). */
	unsigned carried;
};

struct sp_ref_topology;

struct sp_ref_case {
	const char *topology;	/* static: "equal3", "skew4", "u10" */
	const struct sp_ref_topology *topo;	/* in the loader's set */
	enum sp_ref_rw rw;
	int iodepth;
	enum sp_ref_selector selector;
	size_t n_paths;
	struct sp_ref_path paths[SP_REF_MAX_PATHS];
	int line;		/* data-file line of the first path */
};

/* The published topologies, whose files topologies/NAME.ini are. */
#define SP_REF_N_TOPOLOGIES 3
extern const char *const sp_ref_topology_names[SP_REF_N_TOPOLOGIES];

/* One published setup as its topology file resolves it. */
struct sp_ref_topology {
	const char *name;	/* static, one of sp_ref_topology_names */
	size_t n_paths;
	double multiplier[SP_REF_MAX_PATHS];	/* delay / the file's unit */
	double delay_ns[SP_REF_MAX_PATHS];	/* larger of read and write */
	unsigned int servers;	/* the file's: 0 overlapping, N serial */
};

/* Indexed as sp_ref_topology_names; n_paths 0 for one not set. */
struct sp_ref_topologies {
	struct sp_ref_topology topo[SP_REF_N_TOPOLOGIES];
};

struct sp_reference {
	struct sp_ref_case *cases;
	size_t n_cases;
	const struct sp_ref_topologies *topologies;	/* the loader's */
};

/* Reads DIR/equal3.ini, skew4.ini and u10.ini (dir NULL: the bare
 * names, found as sp_topo_load finds them). 0 or -errno with err. */
int sp_ref_topologies_load(const char *dir, struct sp_ref_topologies *set,
			   char *err, size_t errlen);
/* Puts one parsed topology file into its slot of set: -EINVAL (err)
 * for a name that is not a published one or an unusable file. */
struct sp_topo;
int sp_ref_topology_set(struct sp_ref_topologies *set,
			const struct sp_topo *topo, char *err, size_t errlen);

/* NULL for a name that is not published or not in ref's set. */
const struct sp_ref_topology *sp_ref_topology(const struct sp_reference *ref,
					      const char *name);
const struct sp_ref_topology *sp_ref_topologies(const struct sp_reference *ref,
						size_t *n);

const char *sp_ref_rw_name(enum sp_ref_rw rw);
int sp_ref_rw_parse(const char *name);		/* enum value or -EINVAL */
int sp_ref_rw_is_read(enum sp_ref_rw rw);
/* "ST", "HST": the data file's spelling of dm/selector.c's short names. */
const char *sp_ref_selector_name(enum sp_ref_selector sel);
int sp_ref_selector_parse(const char *name);	/* enum value or -EINVAL */
/* SP_REF_ST -> SP_SEL_ST, SP_REF_HST -> SP_SEL_HST */
enum sp_selector sp_ref_selector_kind(enum sp_ref_selector sel);
const char *sp_ref_col_name(enum sp_ref_col col);

/* Parses the text of a data file; origin names it in FILE:LINE errors.
 * Every case's topology must be in topos, which ref then points to:
 * keep it as long as ref. 0 or -EINVAL (one sp_err naming the line and
 * value), -ENOMEM. On error *ref is left empty. */
int sp_ref_parse(const char *text, const char *origin,
		 const struct sp_ref_topologies *topos,
		 struct sp_reference *ref);
/* Reads and parses a file: adds -errno of open/read. */
int sp_ref_load(const char *path, const struct sp_ref_topologies *topos,
		struct sp_reference *ref);
void sp_ref_free(struct sp_reference *ref);

const struct sp_ref_case *sp_ref_find(const struct sp_reference *ref,
				      const char *topology, enum sp_ref_rw rw,
				      int iodepth, enum sp_ref_selector sel);

/* Per-path I/O count in the run's direction (reads or wrts). */
void sp_ref_ios(const struct sp_ref_case *c, uint64_t *ios);
/* Fractions of those I/Os per path (sp_shares). */
int sp_ref_shares(const struct sp_ref_case *c, double *fractions);
/* marked[i] = path i is one of the topology's slow paths (sp_slow_marks:
 * more delay than its fastest path): skew4 -> path 4, u10 -> paths 4..8
 * (1-based), equal3 -> none. Returns how many are marked, or -EINVAL
 * for an unknown topology or a path count that is not the topology's. */
int sp_ref_slow_marks(const struct sp_reference *ref, const char *topology,
		      size_t n_paths, int *marked);
/* The same for the topology of one case. */
int sp_ref_case_slow_marks(const struct sp_ref_case *c, int *marked);
/* Mean service time per I/O of path i in the run's direction, ms
 * (tRed/reads or tWrit/wrts). -EINVAL when the path did no such I/O or
 * its time column is carried over (write runs: tWrit trails a run). */
int sp_ref_service_ms(const struct sp_ref_case *c, size_t path, double *ms);

/* A write run's own tWrit, recovered: the published tWrit of a write
 * table is the cumulative counter as the run started, so the next table
 * in the file (the next run; sda.. keep their names across topologies)
 * holds it as the run ended. c must point into ref->cases. -EINVAL for
 * a read run or a bad path, -ENODATA for the last table or a path the
 * next table does not have. */
int sp_ref_write_ms_recovered(const struct sp_reference *ref,
			      const struct sp_ref_case *c, size_t path,
			      uint64_t *ms);

/* Least squares y = base + slope * x. */
struct sp_linfit {
	double base, slope;
	double r2;	/* coefficient of determination */
	double rmse;	/* root mean square residual, in y's unit */
	size_t n;
};

/* -EINVAL when n < 2 or every x is the same. */
int sp_linfit(const double *x, const double *y, size_t n, struct sp_linfit *fit);

/* Mean service time (ms) = base + slope x multiplier over every path of
 * skew4 and u10 in the iodepth-1 read and randread runs, ST and HST. */
int sp_ref_calibrate(const struct sp_reference *ref, struct sp_linfit *fit);

/* The delay unit that makes a setup with a measured per-I/O base
 * latency keep the published base/slope ratio: unit = base_ns *
 * slope / base. -EINVAL for a fit without a positive base and slope
 * or a non-positive base_ns. */
int sp_ref_unit_ns(const struct sp_linfit *fit, double base_ns, double *unit_ns);
/* The part of fit->base a published path served one command at a time
 * (serial_fit.c): the serial base, 0..base ms, whose capacities
 * 1 / (serial + multiplier x slope) best give the slow paths' shares
 * of the ST runs at iodepth 32 and 64; rmse (NULL: not wanted) in
 * share units. -EINVAL for a bad fit, -ENODATA with no such runs. */
int sp_ref_serial_fit(const struct sp_reference *ref,
		      const struct sp_linfit *fit, double *serial_ms,
		      double *rmse);

#endif
